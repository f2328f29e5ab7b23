import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

/**
 * What `npm install` on a fresh clone does, checked from the files it reads: on the Node and npm the README names it
 * prints no EBADENGINE warning, and it leaves package-lock.json as committed (every platform's optional binaries in
 * it, with the `libc` that npm 11.11 and later write). `../shared/tools/fresh-clone-check` runs the install itself.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const lock = JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8'));
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');

interface LockEntry {
  version?: string;
  engines?: Record<string, string>;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
}
const entries = Object.entries(lock.packages as Record<string, LockEntry>).filter(([key]) => key !== '');
const nameOf = (key: string) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length);
/** The oldest version a range accepts: ">=22.17" → "22.17.0". */
const oldest = (range: string) => semver.minVersion(range)!.version;

describe('npm install on a fresh clone', () => {
  it("the README names the Node and npm that package.json's engines ask for", () => {
    const node = oldest(pkg.engines.node).replace(/\.0$/, '');
    const npm = oldest(pkg.engines.npm).replace(/\.0$/, '');
    expect(readme).toContain(`You need Node.js ${node} or newer and npm ${npm} or newer, as \`engines\` in package.json says`);
  });

  it('every package installed is content with that Node and npm: no EBADENGINE', () => {
    const node = oldest(pkg.engines.node);
    const npm = oldest(pkg.engines.npm);
    // Optional packages whose engines do not fit are skipped without a word; the others are warned about.
    const unhappy = entries
      .filter(([, entry]) => !entry.optional)
      .flatMap(([key, entry]) => [
        ...(entry.engines?.node && !semver.satisfies(node, entry.engines.node) ? [`${nameOf(key)} wants node ${entry.engines.node}`] : []),
        ...(entry.engines?.npm && !semver.satisfies(npm, entry.engines.npm) ? [`${nameOf(key)} wants npm ${entry.engines.npm}`] : []),
      ]);
    expect(unhappy).toEqual([]);
  });

  it('the Node every npm script runs on (the `node` devDependency) meets engines, which scripts/check-node.js checks', () => {
    expect(semver.satisfies(pkg.devDependencies.node, pkg.engines.node)).toBe(true);
    expect(lock.packages['node_modules/node'].version).toBe(pkg.devDependencies.node);
  });

  it('package-lock.json holds every optional dependency of every package, for every platform', () => {
    const has = (key: string) => key in lock.packages;
    /** Where npm would find `name` from the package at `key`: its own node_modules, then each ancestor's. */
    const resolves = (key: string, name: string) => {
      for (let at = key; ; at = at.includes('/node_modules/') ? at.slice(0, at.lastIndexOf('/node_modules/')) : '') {
        if (has(`${at ? `${at}/` : ''}node_modules/${name}`)) return true;
        if (!at) return false;
      }
    };
    const missing = entries.flatMap(([key, entry]) =>
      Object.keys(entry.optionalDependencies ?? {})
        .filter((name) => !resolves(key, name))
        .map((name) => `${name} (for ${nameOf(key)})`),
    );
    expect(missing).toEqual([]);
    // Not only this machine's: the other systems' binaries are there too.
    const platforms = new Set(entries.flatMap(([, entry]) => entry.os ?? []));
    expect([...platforms]).toEqual(expect.arrayContaining(['linux', 'darwin', 'win32']));
  });

  it('each glibc or musl binary carries its libc, as npm 11.11 and later write it (an older npm drops it: a dirty tree)', () => {
    const linuxBinaries = entries.filter(([key, entry]) => entry.os?.includes('linux') && /-(gnu|glibc|musl)$/.test(nameOf(key)));
    expect(linuxBinaries.length).toBeGreaterThan(0);
    expect(linuxBinaries.filter(([, entry]) => !entry.libc?.length).map(([key]) => nameOf(key))).toEqual([]);
  });

  it("the lock file's root is package.json as npm writes it (dependencies, devDependencies, engines)", () => {
    const root = lock.packages[''];
    expect({ dependencies: root.dependencies, devDependencies: root.devDependencies, engines: root.engines }).toEqual({
      dependencies: pkg.dependencies,
      devDependencies: pkg.devDependencies,
      engines: pkg.engines,
    });
  });
});
