import { createHash } from 'node:crypto';
import { randomBytesPooled } from './random.js';

/**
 * Ids are `<prefix>_<26 chars>`: a 48-bit millisecond timestamp then 80 random bits in Crockford base32 (ULID
 * layout), so ids sort by creation time and inserts append to the primary-key index.
 */
const ID_PREFIXES = {
  business: 'bus',
  user: 'user',
  survey: 'sur',
  surveyStep: 'step',
  metric: 'mtr',
  submission: 'sub',
  location: 'loc',
  order: 'ord',
  orderItem: 'oli',
  menuItem: 'mi',
  credential: 'cred',
  token: 'tk',
  webhook: 'wh',
  event: 'evt',
  webhookDelivery: 'whd',
  membership: 'mem',
  customIntegration: 'ci',
  feedbackFlow: 'ff',
  feedbackRequest: 'fr',
  feedbackSuppression: 'fsup',
  request: 'req',
  alertRule: 'alr',
  alertRecipient: 'arc',
  guestCase: 'case',
  caseMessage: 'msg',
  offer: 'off',
  caseAlert: 'cal',
  replyTemplate: 'rtpl',
  invitation: 'inv',
  accountMail: 'amail',
  heldSms: 'hsms',
  devOutboxMessage: 'dmsg',
} as const;

export type IdKind = keyof typeof ID_PREFIXES;

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

// Within one millisecond, keep ids increasing by bumping the random part, as ULID's monotonic factory does.
let lastTime = -1;
let lastRandom: Uint8Array = new Uint8Array(10);

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits -> 16 base32 chars, 5 bits at a time.
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += ALPHABET[(buffer >> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
  }
  return out;
}

function increment(bytes: Uint8Array): Uint8Array {
  const next = Uint8Array.from(bytes);
  for (let i = next.length - 1; i >= 0; i--) {
    if (next[i] < 255) {
      next[i]++;
      return next;
    }
    next[i] = 0;
  }
  return next;
}

export function ulid(now = Date.now()): string {
  if (now <= lastTime) {
    lastRandom = increment(lastRandom);
    now = lastTime;
  } else {
    lastTime = now;
    lastRandom = randomBytesPooled(10);
  }
  return encodeTime(now) + encodeRandom(lastRandom);
}

export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}_${ulid()}`;
}

/**
 * The id of `kind` made at `ms` whose random part is a hash of `key`: the same key gives the same id, so the primary
 * key also keeps what the key names unique (a webhook delivery: one per event and webhook).
 */
export function idFor(kind: IdKind, ms: number, key: string): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(ms)}${encodeRandom(createHash('sha256').update(key).digest().subarray(0, 10))}`;
}

/** The least id of `kind` made at `ms` or later (a prefix of them all): a bound of a time-partitioned table. */
export function idAt(kind: IdKind, ms: number): string {
  return `${ID_PREFIXES[kind]}_${encodeTime(ms)}`;
}

/** When an id (or a bound made by idAt) was made, in ms since the epoch; undefined for anything else. */
export function idTime(value: string): number | undefined {
  const time = /^[a-z]+_([0-9A-HJKMNP-TV-Z]{10})/.exec(value)?.[1];
  if (!time) return undefined;
  let ms = 0;
  for (const char of time) ms = ms * 32 + ALPHABET.indexOf(char);
  return ms;
}

const ID_BODY = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** True when `value` is a well-formed id of that kind: a wrong prefix is an unknown id (404), never a query error. */
export function isId(kind: IdKind, value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const prefix = `${ID_PREFIXES[kind]}_`;
  return value.startsWith(prefix) && ID_BODY.test(value.slice(prefix.length));
}
