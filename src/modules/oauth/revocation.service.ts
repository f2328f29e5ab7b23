import type { EntityManager } from '@mikro-orm/postgresql';
import { OAuthToken } from './oauth-token.entity.js';
import { forgetTokens } from './revocation.cache.js';

/** Marks tokens revoked (those matching `where`) and drops them from this process's cache. Returns their ids. */
export async function revokeTokens(em: EntityManager, where: { id?: string; family?: string; credential?: string; user?: string; business?: string }): Promise<string[]> {
  const rows = await em.find(OAuthToken, { ...where, revokedAt: null }, { fields: ['id'] });
  const ids = rows.map((r) => r.id);
  if (ids.length) await em.nativeUpdate(OAuthToken, { id: { $in: ids } }, { revokedAt: new Date() });
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
