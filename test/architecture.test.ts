import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Imports run one way (DESIGN.md section 1): doors → modules → kit → shared. A module that imports a door, or a kit
 * file that imports a module, turns the layers into a tangle that no one can lift out or test alone; this check
 * fails the suite on the first such import instead of leaving it to a reviewer.
 */
const ROOT = path.resolve(import.meta.dirname, '..');

/** The doors: everything that turns a request or a command into a call of the modules. */
const DOORS = ['src/http', 'src/oauth', 'src/ingest', 'src/cli', 'src/graphql', 'src/app.ts', 'src/main.ts', 'rest-adapter'];

const within = (file: string, place: string) => file === place || file.startsWith(`${place}/`);
const layerOf = (file: string) => (within(file, 'src/kit') ? 'kit' : within(file, 'src/modules') ? 'module' : undefined);

/** Relative specifiers of every static import, re-export, side-effect import and dynamic import() in `source`. */
function importSpecifiers(source: string): string[] {
  const pattern = /\b(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|\bimport\s+['"]([^'"]+)['"]/g;
  return [...source.matchAll(pattern)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** `from` imports `to` (both relative to the repository root, without extension): what rule does that break, if any. */
function violation(from: string, to: string): string | undefined {
  const layer = layerOf(from);
  if (!layer) return undefined;
  const door = DOORS.find((d) => within(to, d.replace(/\.ts$/, '')));
  if (door) return `a ${layer} file imports the door ${door}`;
  if (layer === 'kit' && within(to, 'src/modules')) return 'a kit file imports a module';
  return undefined;
}

function sourceFiles(dir: string, extensions = ['.ts']): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(file, extensions);
    return extensions.some((e) => file.endsWith(e)) ? [file] : [];
  });
}

/**
 * The portal (src/portal) is a browser app that knows the service only through /graphql and OAuth: it may import
 * itself and the scope list (plain data), nothing else of the server; and no server file imports it.
 */
const PORTAL_MAY_IMPORT = ['src/portal', 'src/auth/scopes'];
function portalViolations(): string[] {
  const resolve = (file: string, specifier: string) => path.posix.join(path.posix.dirname(file), specifier).replace(/\.(js|ts|tsx)$/, '');
  const browser = sourceFiles('src/portal', ['.ts', '.tsx']).flatMap((file) =>
    importSpecifiers(readFileSync(path.join(ROOT, file), 'utf8'))
      .filter((s) => s.startsWith('.'))
      .filter((s) => !PORTAL_MAY_IMPORT.some((place) => within(resolve(file, s), place)))
      .map((s) => `${file} imports ${s}: the portal reaches the service only through its APIs`),
  );
  const server = [...sourceFiles('src'), ...sourceFiles('rest-adapter')]
    .filter((file) => !within(file, 'src/portal'))
    .flatMap((file) =>
      importSpecifiers(readFileSync(path.join(ROOT, file), 'utf8'))
        .filter((s) => s.startsWith('.') && within(resolve(file, s), 'src/portal'))
        .map((s) => `${file} imports ${s}: browser code in the server`),
    );
  return [...browser, ...server];
}

function violations(files: string[]): string[] {
  return files.flatMap((file) =>
    importSpecifiers(readFileSync(path.join(ROOT, file), 'utf8'))
      .filter((specifier) => specifier.startsWith('.'))
      .flatMap((specifier) => {
        const target = path.posix.join(path.posix.dirname(file), specifier).replace(/\.(js|ts)$/, '');
        const broken = violation(file, target);
        return broken ? [`${file} imports ${specifier}: ${broken}`] : [];
      }),
  );
}

describe('import direction', () => {
  it('finds every kind of import specifier', () => {
    const source = [
      "import { a } from '../a.js';",
      "import type {\n  B,\n  C,\n} from '../b.js';",
      "export { d } from './d.js';",
      "export * from './e.js';",
      "import './f.js';",
      "const g = await import('../g.js');",
    ].join('\n');
    expect(importSpecifiers(source)).toEqual(['../a.js', '../b.js', './d.js', './e.js', './f.js', '../g.js']);
  });

  it('names the imports that break the direction, and only those', () => {
    expect(violation('src/modules/survey/survey.service.ts', 'src/graphql/schema')).toBe('a module file imports the door src/graphql');
    expect(violation('src/modules/credential/credential.service.ts', 'src/oauth/revocation.service')).toMatch(/door src\/oauth/);
    expect(violation('src/modules/order/order.service.ts', 'src/app')).toMatch(/door src\/app\.ts/);
    expect(violation('src/kit/context.ts', 'src/http/logger')).toMatch(/door src\/http/);
    expect(violation('src/kit/loaders.ts', 'src/modules/survey/survey.entity')).toBe('a kit file imports a module');
    expect(violation('src/kit/list.args.ts', 'rest-adapter/query.parsers')).toMatch(/door rest-adapter/);
    expect(violation('src/modules/survey/survey.service.ts', 'src/kit/list.query')).toBeUndefined();
    expect(violation('src/modules/survey/survey.service.ts', 'src/modules/event/event.service')).toBeUndefined();
    expect(violation('src/kit/list.query.ts', 'src/shared/errors')).toBeUndefined();
    expect(violation('src/graphql/schema.ts', 'src/modules/survey/survey.resolver')).toBeUndefined();
    expect(violation('src/http/error.middleware.ts', 'src/oauth/oauth.errors')).toBeUndefined();
  });

  it('keeps the portal a client of the APIs: it imports only itself and the scope list, and the server never imports it', () => {
    expect(sourceFiles('src/portal', ['.ts', '.tsx']).length).toBeGreaterThan(5);
    expect(portalViolations()).toEqual([]);
  });

  it('holds for every file under src/kit and src/modules', () => {
    const files = [...sourceFiles('src/kit'), ...sourceFiles('src/modules')];
    expect(files.length).toBeGreaterThan(20);
    expect(violations(files)).toEqual([]);
  });
});
