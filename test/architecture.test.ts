import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { PORTAL_SHARED_SOURCES } from '../scripts/build-portal.js';

/**
 * Imports run one way (docs/architecture.md, "Layers"): doors → modules → kit → shared, with the database's
 * composition (src/db) beside the doors and the senders (src/senders) an adapter the doors hand to the modules. A
 * module that imports a door, a kit file that imports a module, or two modules that import each other turn the
 * layers into a tangle that no one can lift out or test alone; this check fails the suite on the first such import
 * instead of leaving it to a reviewer.
 */
const ROOT = path.resolve(import.meta.dirname, '..');

type Layer = 'door' | 'composition' | 'module' | 'adapter' | 'kit' | 'shared' | 'portal';

/**
 * Every top-level folder and file of src/, and rest-adapter/, with its layer: a new one fails the suite until it is
 * given one here. Doors turn a request, a command or a job into calls of the modules; the composition builds the
 * database from the modules' entities; the senders send what they are given (they take it as data, so they know no
 * module); the kit is the machinery every module uses; shared is plain code every layer may use.
 */
const LAYERS: Record<string, Layer> = {
  'src/app.ts': 'door',
  'src/main.ts': 'door',
  'src/http': 'door',
  'src/oauth': 'door',
  'src/ingest': 'door',
  'src/cli': 'door',
  'src/graphql': 'door',
  'src/guest': 'door',
  'src/worker': 'door',
  'rest-adapter': 'door',
  'src/db': 'composition',
  // The modules' services composed from the configuration, once per process (the app, the workers, the CLI).
  'src/compose.ts': 'composition',
  'src/modules': 'module',
  'src/senders': 'adapter',
  'src/kit': 'kit',
  'src/shared': 'shared',
  'src/auth': 'shared',
  'src/config.ts': 'shared',
  'src/config.test.ts': 'shared',
  // The browser app: its own rules (portalViolations).
  'src/portal': 'portal',
};

/** What each layer may import, besides itself. */
const MAY_IMPORT: Record<Exclude<Layer, 'portal'>, Layer[]> = {
  door: ['door', 'composition', 'module', 'adapter', 'kit', 'shared'],
  composition: ['module', 'kit', 'shared'],
  module: ['kit', 'shared'],
  adapter: ['shared'],
  kit: ['shared'],
  shared: [],
};

const within = (file: string, place: string) => file === place || file.startsWith(`${place}/`);
/** The place `file` (relative to the repository root, with or without its extension) belongs to, if any. */
const placeOf = (file: string) => Object.keys(LAYERS).find((place) => within(file, place.replace(/\.ts$/, '')));
const layerOf = (file: string): Layer | undefined => {
  const place = placeOf(file);
  return place ? LAYERS[place] : undefined;
};
/** The module a file under src/modules belongs to ('survey' for src/modules/survey/survey.service). */
const moduleOf = (file: string) => (within(file, 'src/modules') ? file.split('/')[2] : undefined);

/** Relative specifiers of every static import, re-export, side-effect import and dynamic import() in `source`. */
function importSpecifiers(source: string): string[] {
  const pattern = /\b(?:import|export)\s[^'"]*?\bfrom\s*['"]([^'"]+)['"]|\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)|\bimport\s+['"]([^'"]+)['"]/g;
  return [...source.matchAll(pattern)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/**
 * `from` imports `to` (both relative to the repository root, without extension): what rule does that break, if any.
 * A unit test beside a module's code may import an adapter it checks the module against.
 */
function violation(from: string, to: string): string | undefined {
  const layer = layerOf(from);
  const target = layerOf(to);
  if (!layer || layer === 'portal' || !target || target === 'portal' || target === layer) return undefined;
  if (MAY_IMPORT[layer].includes(target)) return undefined;
  if (target === 'adapter' && from.endsWith('.test.ts')) return undefined;
  const place = placeOf(to)!;
  const what =
    target === 'door'
      ? `the door ${place}`
      : target === 'composition'
        ? `the composition ${place}`
        : target === 'adapter'
          ? `the adapter ${place}`
          : `a ${target} file`;
  return `${layer === 'adapter' ? 'an' : 'a'} ${layer} file imports ${what}`;
}

/** Each file's relative imports, resolved from the repository root and without extension. */
function importsOf(file: string): string[] {
  return importSpecifiers(readFileSync(path.join(ROOT, file), 'utf8'))
    .filter((specifier) => specifier.startsWith('.'))
    .map((specifier) => path.posix.join(path.posix.dirname(file), specifier).replace(/\.(js|ts|tsx)$/, ''));
}

/**
 * The cycles among modules: each group of modules that reach one another through their imports (test files left
 * out), named by its shortest cycle and the imports that make it ("flow → order → flow (feedback-flow.rules imports
 * order/order.entity; order.writer imports flow/feedback-request.create)"), and the group's other members if any.
 */
function moduleCycles(imports: Array<[from: string, to: string]>): string[] {
  const edges = new Map<string, Map<string, string>>();
  for (const [from, to] of imports) {
    const a = moduleOf(from);
    const b = moduleOf(to);
    if (!a || !b || a === b || from.endsWith('.test.ts')) continue;
    if (!edges.has(a)) edges.set(a, new Map());
    if (!edges.get(a)!.has(b)) edges.get(a)!.set(b, `${path.posix.basename(from).replace(/\.ts$/, '')} imports ${to.split('/').slice(2).join('/')}`);
  }
  const next = (a: string) => [...(edges.get(a)?.keys() ?? [])].sort();
  /** Breadth first from `start`: each reached module with the one it was reached from. */
  const reach = (start: string) => {
    const cameFrom = new Map<string, string>();
    const queue = [start];
    while (queue.length) {
      const at = queue.shift()!;
      for (const to of next(at)) {
        if (cameFrom.has(to)) continue;
        cameFrom.set(to, at);
        queue.push(to);
      }
    }
    return cameFrom;
  };
  const grouped = new Set<string>();
  const cycles: string[] = [];
  for (const module of [...edges.keys()].sort()) {
    const cameFrom = reach(module);
    if (grouped.has(module) || !cameFrom.has(module)) continue;
    // The group: the modules reached from this one that reach it back.
    const group = [...cameFrom.keys()].filter((other) => reach(other).has(module));
    group.forEach((m) => grouped.add(m));
    const cycle = [module];
    for (let back = cameFrom.get(module)!; back !== module; back = cameFrom.get(back)!) cycle.splice(1, 0, back);
    cycle.push(module);
    const why = cycle.slice(1).map((to, i) => edges.get(cycle[i])!.get(to)!);
    const others = group.filter((m) => !cycle.includes(m)).sort();
    cycles.push(`${cycle.join(' → ')} (${why.join('; ')})${others.length ? `, with ${others.join(', ')} in the same tangle` : ''}`);
  }
  return cycles;
}

/**
 * The cycles among files (type-only imports included: a cycle of types still makes two files one unit to read): each
 * group of files that reach one another, as "a → b → a". Tarjan's strongly connected components over the imports.
 */
function fileCycles(imports: Array<[from: string, to: string]>): string[] {
  const edges = new Map<string, string[]>();
  for (const [from, to] of imports) edges.set(from, [...(edges.get(from) ?? []), to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const groups: string[] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    for (const next of edges.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const group = stack.splice(stack.indexOf(file));
    if (group.length > 1) groups.push([...group.sort(), group[0]].join(' → '));
  };
  for (const file of edges.keys()) if (!index.has(file)) visit(file);
  return groups;
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
 * itself and the few plain files its build takes in (the scope list, the CSV writer), nothing else of the server; and
 * no server file imports it.
 */
const PORTAL_MAY_IMPORT = ['src/portal', ...PORTAL_SHARED_SOURCES.map((file) => file.replace(/\.ts$/, ''))];
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
    importsOf(file).flatMap((target) => {
      const broken = violation(file, target);
      return broken ? [`${file} imports ${path.posix.relative(path.posix.dirname(file), target)}: ${broken}`] : [];
    }),
  );
}

const serverFiles = () => [...sourceFiles('src'), ...sourceFiles('rest-adapter')].filter((file) => !within(file, 'src/portal'));

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
    expect(violation('src/modules/oauth/credential.service.ts', 'src/oauth/client.auth')).toMatch(/door src\/oauth/);
    expect(violation('src/modules/order/order.service.ts', 'src/app')).toMatch(/door src\/app\.ts/);
    expect(violation('src/kit/graphql/context.ts', 'src/http/logger')).toMatch(/door src\/http/);
    expect(violation('src/kit/graphql/loaders.ts', 'src/modules/survey/survey.entity')).toBe('a kit file imports a module file');
    expect(violation('src/kit/list/list.args.ts', 'rest-adapter/query.parsers')).toMatch(/door rest-adapter/);
    expect(violation('src/modules/health/health.resolver.ts', 'src/db/database')).toBe('a module file imports the composition src/db');
    expect(violation('src/db/entities.ts', 'src/oauth/oauth.module')).toBe('a composition file imports the door src/oauth');
    expect(violation('src/modules/flow/feedback-request.task.ts', 'src/senders/mail.sender')).toBe('a module file imports the adapter src/senders');
    expect(violation('src/senders/mail.sender.ts', 'src/modules/flow/feedback-request.task')).toBe('an adapter file imports a module file');
    expect(violation('src/senders/http.sender.ts', 'src/kit/metrics/metrics')).toBe('an adapter file imports a kit file');
    expect(violation('src/shared/errors.ts', 'src/kit/graphql/context')).toBe('a shared file imports a kit file');
    expect(violation('src/auth/principal.ts', 'src/config')).toBeUndefined();
    expect(violation('src/modules/survey/survey.service.ts', 'src/kit/list/list.query')).toBeUndefined();
    expect(violation('src/modules/survey/survey.service.ts', 'src/modules/event/event.service')).toBeUndefined();
    expect(violation('src/modules/webhook/webhook-delivery.task.test.ts', 'src/senders/http.sender')).toBeUndefined();
    expect(violation('src/kit/list/list.query.ts', 'src/shared/errors')).toBeUndefined();
    expect(violation('src/graphql/schema.ts', 'src/modules/survey/survey.resolver')).toBeUndefined();
    expect(violation('src/http/error.middleware.ts', 'src/modules/oauth/oauth-errors.presenter')).toBeUndefined();
    expect(violation('src/worker/worker.runner.ts', 'src/senders/http.sender')).toBeUndefined();
    expect(violation('src/db/entities.ts', 'src/modules/oauth/oauth-token.entity')).toBeUndefined();
    expect(violation('src/cli/admin.ts', 'src/db/database')).toBeUndefined();
  });

  it('gives every top-level folder and file of src/ a layer', () => {
    const unplaced = readdirSync(path.join(ROOT, 'src')).filter((name) => !(`src/${name}` in LAYERS));
    expect(unplaced).toEqual([]);
  });

  it('names the cycles among modules, by their imports', () => {
    const imports: Array<[string, string]> = [
      ['src/modules/a/a.service.ts', 'src/modules/b/b.entity'],
      ['src/modules/b/b.service.ts', 'src/modules/c/c.service'],
      ['src/modules/c/c.service.ts', 'src/modules/a/a.entity'],
      ['src/modules/c/c.service.test.ts', 'src/modules/d/d.service'],
      ['src/modules/d/d.service.ts', 'src/modules/c/c.entity'],
      ['src/modules/e/e.service.ts', 'src/modules/a/a.entity'],
    ];
    expect(moduleCycles(imports)).toEqual(['a → b → c → a (a.service imports b/b.entity; b.service imports c/c.service; c.service imports a/a.entity)']);
    expect(moduleCycles(imports.slice(0, 2))).toEqual([]);
  });

  it('keeps the portal a client of the APIs: it imports only itself and the scope list, and the server never imports it', () => {
    expect(sourceFiles('src/portal', ['.ts', '.tsx']).length).toBeGreaterThan(5);
    expect(portalViolations()).toEqual([]);
  });

  it('holds for every file of the server', () => {
    const files = serverFiles();
    expect(files.length).toBeGreaterThan(100);
    expect(violations(files)).toEqual([]);
  });

  it('names the cycles among files', () => {
    expect(
      fileCycles([
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'a'],
        ['c', 'd'],
        ['d', 'e'],
      ]),
    ).toEqual(['a → b → c → a']);
    expect(
      fileCycles([
        ['a', 'b'],
        ['b', 'c'],
      ]),
    ).toEqual([]);
  });

  it('leaves no cycle among the files of the server and of the portal', () => {
    const files = [...sourceFiles('src', ['.ts', '.tsx']), ...sourceFiles('rest-adapter')].filter(
      (file) => !file.endsWith('.test.ts') && !file.endsWith('.d.ts'),
    );
    const known = new Set(files.map((file) => file.replace(/\.(ts|tsx)$/, '')));
    const imports = files.flatMap((file) =>
      importsOf(file)
        .filter((target) => known.has(target))
        .map((target): [string, string] => [file.replace(/\.(ts|tsx)$/, ''), target]),
    );
    expect(imports.length).toBeGreaterThan(500);
    expect(fileCycles(imports)).toEqual([]);
  });

  it("keeps the root mikro-orm.config.ts an entry for MikroORM's CLI: it imports src/db, nothing in src/ imports it", () => {
    expect(importsOf('mikro-orm.config.ts')).toEqual(['src/db/orm.config']);
    expect(serverFiles().filter((file) => importsOf(file).includes('mikro-orm.config'))).toEqual([]);
  });

  it('keeps no mutable state exported from a file (what a module needs is given to it, not set from outside)', () => {
    const exported = [...serverFiles(), ...sourceFiles('src/portal', ['.ts', '.tsx'])].filter((file) =>
      /^export (let|var)\b/m.test(readFileSync(path.join(ROOT, file), 'utf8')),
    );
    expect(exported).toEqual([]);
  });

  /**
   * A module is given its settings and its followers by the composition root (src/compose.ts), never set from outside
   * at start: a start that forgot one (the workers alone did) would run with defaults. A `let` at a module's top level
   * is such state; the one kept is a cache's generation (its writes in this process drop what a racing load read).
   */
  it('keeps the modules and the kit free of state set at start: no top-level let', () => {
    const KEPT = ['src/modules/flow/feedback-request-creation.service.ts'];
    const stateful = serverFiles().filter(
      (file) => (within(file, 'src/modules') || within(file, 'src/kit')) && /^(let|var)\b/m.test(readFileSync(path.join(ROOT, file), 'utf8')),
    );
    expect(stateful).toEqual(KEPT);
    expect(serverFiles().filter((file) => /^export function (configure|follow)[A-Z]/m.test(readFileSync(path.join(ROOT, file), 'utf8')))).toEqual([]);
  });

  /**
   * Where a rule lives is not a guess (docs/architecture.md, "Where things live"): each file of a module is one of these
   * kinds, named `<noun>.<kind>.ts`; a file that fits none is a sign to split or rename it. The kit is grouped by
   * concern, one folder each, and holds no domain code.
   */
  it('gives every file of a module one of the known kinds, and every file of the kit a concern', () => {
    const KINDS = ['entity', 'repo', 'service', 'rules', 'policy', 'presenter', 'resolver', 'type', 'inputs', 'model', 'task', 'signal', 'cache', 'lexicon'];
    const kind = new RegExp(`^[a-z0-9-]+\\.(${KINDS.join('|')})(\\.test)?\\.ts$`);
    const modules = sourceFiles('src/modules').filter((file) => !kind.test(path.posix.basename(file)) && path.posix.basename(file) !== 'index.ts');
    expect(modules).toEqual([]);
    const CONCERNS = ['db', 'replicas', 'signals', 'graphql', 'list', 'resource', 'keys', 'metrics'];
    const kit = sourceFiles('src/kit').filter((file) => !CONCERNS.includes(file.split('/')[2]) || file.split('/').length !== 4);
    expect(kit).toEqual([]);
  });

  /** A module is entered through its door: the rest of its files (its repository first) can change without others noticing. */
  const throughDoors = (imports: Array<[from: string, to: string]>) =>
    imports
      .filter(
        ([from, to]) =>
          moduleOf(to) && moduleOf(to) !== moduleOf(from) && path.posix.basename(to) !== 'index' && !within(from, 'src/db') && !from.endsWith('.test.ts'),
      )
      .map(([from, to]) => `${from} imports ${to}`);

  it('names the imports that pass a module by its door', () => {
    expect(
      throughDoors([
        ['src/modules/case/case.service.ts', 'src/modules/order/index'],
        ['src/worker/case-outbox.runner.ts', 'src/modules/case/case.repo'],
        ['src/modules/case/case.service.ts', 'src/modules/case/case.repo'],
        ['src/db/entities.ts', 'src/modules/case/case.entity'],
      ]),
    ).toEqual(['src/worker/case-outbox.runner.ts imports src/modules/case/case.repo']);
  });

  it('enters every module through its index.ts, from the doors and from other modules alike', () => {
    const imports = serverFiles().flatMap((file) => importsOf(file).map((target): [string, string] => [file, target]));
    expect(imports.filter(([from, to]) => moduleOf(to) && moduleOf(from) !== moduleOf(to)).length).toBeGreaterThan(150);
    expect(throughDoors(imports)).toEqual([]);
  });

  it('leaves no cycle among the modules', () => {
    const imports = serverFiles().flatMap((file) => importsOf(file).map((target): [string, string] => [file, target]));
    expect(moduleCycles(imports)).toEqual([]);
  });
});
