import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { RESUME_DAYS } from '../modules/submission/response.service.js';
import { constantTimeEqual } from '../shared/secrets.js';

/**
 * One cookie per survey (its path is the survey's), `<session id>.<first view, ms>`: the session id finds this
 * device's response when the guest returns (for RESUME_DAYS), the first view times the response (too fast is
 * suspected spam), and a hash of it is the forms' double-submit CSRF token. HttpOnly, SameSite=Lax.
 */
const COOKIE = 'guest_session';

export interface GuestSession {
  id: string;
  startedAt: number;
  /** Whether the request brought it (a post without it cannot be ours). */
  fromCookie: boolean;
}

export const surveyPath = (business: string, survey: string) => `/survey/${business}/${survey}`;

export function readSession(ctx: Context): GuestSession | null {
  const raw = ctx.cookies.get(COOKIE);
  const match = raw ? /^([A-Za-z0-9_-]{43})\.(\d{13})$/.exec(raw) : null;
  if (!match) return null;
  const startedAt = Number(match[2]);
  return startedAt > Date.now() ? null : { id: match[1], startedAt, fromCookie: true };
}

/** The request's session, or a new one set on the response. */
export function session(ctx: Context, path: string): GuestSession {
  const found = readSession(ctx);
  if (found) return found;
  const fresh = { id: randomBytes(32).toString('base64url'), startedAt: Date.now(), fromCookie: false };
  ctx.cookies.set(COOKIE, `${fresh.id}.${fresh.startedAt}`, {
    httpOnly: true,
    sameSite: 'lax',
    secure: ctx.secure,
    path,
    maxAge: RESUME_DAYS * 86_400_000,
    overwrite: true,
  });
  return fresh;
}

export const csrfFor = (s: GuestSession) => createHash('sha256').update(`csrf:${s.id}`).digest('base64url');

export function csrfMatches(s: GuestSession | null, sent: unknown): boolean {
  return !!s && typeof sent === 'string' && constantTimeEqual(sent, csrfFor(s));
}
