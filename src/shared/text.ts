import { AppError } from './errors.js';

// U+0000, or a surrogate half without its other half: PostgreSQL can store neither in text or jsonb.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The path of the first string (or key) in a JSON value that PostgreSQL cannot store, or undefined. */
export function findUnstorableText(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? path || '(body)' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], `${path}[${i}]`);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const here = path ? `${path}.${key}` : key;
      if (UNSTORABLE.test(key)) return here;
      const found = findUnstorableText(item, here);
      if (found) return found;
    }
  }
  return undefined;
}

export const UNSTORABLE_MESSAGE = 'contains a character that cannot be stored (U+0000 or an unpaired UTF-16 surrogate)';

/** For values decoded from JSON in a query string (GraphQL GET variables, REST filters): a 400 naming where. */
export function assertStorableText(value: unknown, name: string): void {
  const where = findUnstorableText(value);
  if (where) throw new AppError('bad_request', `${name}.${where} ${UNSTORABLE_MESSAGE}`, [{ field: `${name}.${where}`, message: UNSTORABLE_MESSAGE }]);
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
