import type { EntityManager } from '@mikro-orm/postgresql';
import { OAuthToken } from './oauth-token.entity.js';
import { forgetTokens } from './revocation.cache.js';

/**
 * How a token came: `signIn`, a member's consent (the authorization code grant and the refreshes after it: each with a
 * refresh token); `secret`, a client's secret alone (client_credentials: no refresh token, acting for the credential's
 * creator).
 */
export type TokenOrigin = 'signIn' | 'secret';

/**
 * Marks tokens revoked (those matching `where`, of one origin when it names one) and drops them from this process's
 * cache. Returns their ids.
 */
export async function revokeTokens(
  em: EntityManager,
  { origin, ...where }: { id?: string; family?: string; credential?: string; user?: string; business?: string; origin?: TokenOrigin },
): Promise<string[]> {
  const from = origin === undefined ? {} : { refreshHash: origin === 'secret' ? null : { $ne: null } };
  const rows = await em.find(OAuthToken, { ...where, ...from, revokedAt: null }, { fields: ['id', 'business'] });
  const ids = rows.map((r) => r.id);
  // One statement per business (one, but for a user's tokens everywhere): each on its own shard.
  const byBusiness = new Map<string, string[]>();
  for (const r of rows) {
    const of = byBusiness.get(r.business);
    if (of) of.push(r.id);
    else byBusiness.set(r.business, [r.id]);
  }
  const now = new Date();
  for (const [business, of] of byBusiness) await em.nativeUpdate(OAuthToken, { business, id: { $in: of } }, { revokedAt: now });
  forgetTokens(ids);
  return ids;
}

/**
 * A member's role changed: this process re-reads it on their tokens' next use (the others within REVOCATION_CACHE_MS),
 * so the tokens act with the new role's scopes without being revoked.
 */
export async function forgetMemberTokens(em: EntityManager, where: { user: string; business: string }): Promise<void> {
  const rows = await em.find(OAuthToken, { ...where, revokedAt: null }, { fields: ['id'] });
  forgetTokens(rows.map((r) => r.id));
}
