import { createHash } from 'node:crypto';
import type { OAuthSettings } from '../../config.js';
import type { Credential } from './credential.entity.js';

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/**
 * Whether this client's authorization codes are held to OAuth 2.1: PKCE (S256) at the authorization endpoint, and
 * the verifier and the redirect URI again at the token endpoint. A public client (no secret; load it) always is:
 * nothing else ties its code to it (RFC 9700 2.1.1). A confidential client is when it opted in (requirePkce) or the
 * operator requires it of all (OAUTH_REQUIRE_PKCE=all); otherwise it may follow the interface document's flow, which
 * sends neither, and what it does send is checked all the same.
 */
export function strictClient(client: Pick<Credential, 'secretHash' | 'requirePkce'>, settings: OAuthSettings): boolean {
  return typeof client.secretHash !== 'string' || client.requirePkce || settings.requirePkce === 'all';
}
