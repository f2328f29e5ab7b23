import type { MembershipRole } from '../user/index.js';

/** A revocation (or removed membership) is seen by every process within this time. */
export const REVOCATION_CACHE_MS = 2_000;

/** `role`: the user's role in the token's business now; a token acts with its scopes narrowed to what the role allows. */
export type CheckResult = { ok: true; role: MembershipRole } | { ok: false; message: string };

/**
 * Per process: the outcome of a token's revocation-and-membership check, kept REVOCATION_CACHE_MS. Revocations made in
 * this process drop their entries at once (forgetTokens); other processes see them when the entry runs out.
 */
const entries = new Map<string, { result: CheckResult; until: number }>();

export function cachedCheck(tokenId: string, now = Date.now()): CheckResult | undefined {
  const entry = entries.get(tokenId);
  return entry && entry.until > now ? entry.result : undefined;
}

export function rememberCheck(tokenId: string, result: CheckResult, now = Date.now()): void {
  if (entries.size > 50_000) entries.clear();
  entries.set(tokenId, { result, until: now + REVOCATION_CACHE_MS });
}

export function forgetTokens(tokenIds: Iterable<string>): void {
  for (const id of tokenIds) entries.delete(id);
}
