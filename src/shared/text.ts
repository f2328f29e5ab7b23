import { AppError } from './errors.js';

// U+0000, or a surrogate half without its other half: PostgreSQL can store neither in text or jsonb.
// biome-ignore lint/suspicious/noControlCharactersInRegex: U+0000 is what it looks for.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** JSON from clients nests at most this deep (objects and arrays): deeper is refused before anything walks it. */
export const MAX_JSON_DEPTH = 64;

export type JsonProblem = { kind: 'too_deep'; path: string } | { kind: 'unstorable'; path: string };

/**
 * One walk over a JSON value, iterative (a value nested 10,000 deep cannot overflow the stack here): the first
 * place nested deeper than `maxDepth`, or the first string (or key) PostgreSQL cannot store, or undefined.
 */
export function inspectJson(value: unknown, maxDepth = MAX_JSON_DEPTH): JsonProblem | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) return { kind: 'unstorable', path: path || '(body)' };
      continue;
    }
    if (!v || typeof v !== 'object') continue;
    if (depth >= maxDepth) return { kind: 'too_deep', path: path || '(body)' };
    // Pushed in reverse so the first problem in document order is the one reported.
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], path: `${path}[${i}]`, depth: depth + 1 });
    } else {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, item] = entries[i];
        const here = path ? `${path}.${key}` : key;
        if (UNSTORABLE.test(key)) return { kind: 'unstorable', path: here };
        stack.push({ value: item, path: here, depth: depth + 1 });
      }
    }
  }
  return undefined;
}

export const UNSTORABLE_MESSAGE = 'contains a character that cannot be stored (U+0000 or an unpaired UTF-16 surrogate)';

/** For values decoded from JSON in a query string (GraphQL GET variables, REST filters): a 400 naming where. */
export function assertStorableText(value: unknown, name: string): void {
  const problem = inspectJson(value);
  if (problem) throw jsonProblemError(problem, name);
}

export const TOO_DEEP_MESSAGE = `is nested more than ${MAX_JSON_DEPTH} levels deep`;

/** The 400 for a problem inspectJson found, naming where (`prefix` for values that are not the whole body). */
export function jsonProblemError(problem: JsonProblem, prefix?: string): AppError {
  const field = prefix ? `${prefix}.${problem.path}` : problem.path;
  const message = problem.kind === 'too_deep' ? TOO_DEEP_MESSAGE : UNSTORABLE_MESSAGE;
  return new AppError('bad_request', `${field} ${message}`, [{ field, message }]);
}

// PostgreSQL: 22021 character_not_in_repertoire, 22P05 untranslatable_character; 22P02 for a \ud800 escape in jsonb.
const CHARACTER_ERRORS = new Set(['22021', '22P05']);

/** A database refusal caused by the characters a client sent: theirs to fix (400), not a server fault. */
export function characterErrorFromDatabase(err: unknown): AppError | undefined {
  const e = err as { code?: string; message?: string } | null;
  if (!e || typeof e.code !== 'string') return undefined;
  if (CHARACTER_ERRORS.has(e.code) || (e.code === '22P02' && /surrogate|\\u0000/i.test(e.message ?? ''))) {
    return new AppError('bad_request', `A text value ${UNSTORABLE_MESSAGE}`);
  }
  return undefined;
}
