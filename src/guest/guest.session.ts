import { createHash, createHmac, type KeyObject } from 'node:crypto';
import { randomBytesPooled } from '../shared/random.js';
import type { Context } from 'koa';
import { RESUME_DAYS } from '../modules/submission/index.js';
import { constantTimeEqual } from '../shared/secrets.js';
import type { GuestSessionKeys, SessionKey } from '../modules/guest-session/index.js';

/**
 * One cookie per survey (its path is the survey's): `<secret>.<first view, ms>.<kid>.<mac>`, HttpOnly, SameSite=Lax.
 * - The secret stays between the guest's device and this service. The session id stored with the response, and shown
 *   in webhook payloads and GraphQL, is a hash of it: knowing the id gives no cookie.
 * - The mac is HMAC-SHA256 of the rest under the server key `kid` (guest-session-key.service.ts), so no part can be
 *   made up or changed (the first view times the response: too fast is suspected spam). A cookie that does not
 *   verify is no session: the guest starts a new one, as without a cookie.
 * - A hash of the secret is the forms' double-submit CSRF token.
 */
const COOKIE = 'guest_session';
const FORMAT = /^([A-Za-z0-9_-]{43})\.(\d{13})\.([A-Za-z0-9_-]{1,32})\.([A-Za-z0-9_-]{43})$/;
const LIFETIME_MS = RESUME_DAYS * 86_400_000;

export interface GuestSession {
  /** The public session id: what the response stores and events show. */
  id: string;
  /** The cookie's secret, never stored nor shown. */
  secret: string;
  startedAt: number;
  /** Whether the request brought it (a post without it cannot be ours). */
  fromCookie: boolean;
}

export const surveyPath = (business: string, survey: string) => `/survey/${business}/${survey}`;

const publicId = (secret: string) => createHash('sha256').update(`guest-session:${secret}`).digest('base64url');
const mac = (key: KeyObject, signed: string) => createHmac('sha256', key).update(signed).digest('base64url');

/** The cookie's value for a session started at `startedAt`, signed with `key`. */
function sealSession(secret: string, startedAt: number, key: SessionKey): string {
  const signed = `${secret}.${startedAt}.${key.kid}`;
  return `${signed}.${mac(key.key, signed)}`;
}

export class GuestSessions {
  constructor(private readonly keys: GuestSessionKeys) {}

  /** The request's session when its cookie verifies; null otherwise (none, expired, forged or tampered alike). */
  async read(ctx: Context): Promise<GuestSession | null> {
    const match = FORMAT.exec(ctx.cookies.get(COOKIE) ?? '');
    if (!match) return null;
    const [, secret, ms, kid, sent] = match;
    const startedAt = Number(ms);
    if (startedAt > Date.now() || startedAt < Date.now() - LIFETIME_MS) return null;
    const key = await this.keys.verifying(kid);
    if (!key || !constantTimeEqual(sent, mac(key, `${secret}.${ms}.${kid}`))) return null;
    return { id: publicId(secret), secret, startedAt, fromCookie: true };
  }

  /** The request's session, or a new one set on the response. */
  async open(ctx: Context, path: string): Promise<GuestSession> {
    const found = await this.read(ctx);
    if (found) return found;
    const fresh = { secret: randomBytesPooled(32).toString('base64url'), startedAt: Date.now() };
    ctx.cookies.set(COOKIE, sealSession(fresh.secret, fresh.startedAt, await this.keys.signing()), {
      httpOnly: true,
      sameSite: 'lax',
      secure: ctx.secure,
      path,
      maxAge: LIFETIME_MS,
      overwrite: true,
    });
    return { id: publicId(fresh.secret), ...fresh, fromCookie: false };
  }
}

export const csrfFor = (s: GuestSession) => createHash('sha256').update(`csrf:${s.secret}`).digest('base64url');

export function csrfMatches(s: GuestSession | null, sent: unknown): boolean {
  return !!s && typeof sent === 'string' && constantTimeEqual(sent, csrfFor(s));
}
