import { createHash } from 'node:crypto';
import type { OAuthSettings } from '../../config.js';
import type { Credential } from './credential.entity.js';

export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/**
 * Whether an authorization code for this client needs PKCE (S256), at the authorization and the token endpoint alike:
 * always (OAuth 2.1), but for a confidential client (one with a secret; load it) while the operator's migration switch
 * OAUTH_ALLOW_CONFIDENTIAL_WITHOUT_PKCE is on. A public client has nothing else tying its code to it (RFC 9700 2.1.1).
 */
export function pkceRequired(client: Pick<Credential, 'secretHash'>, settings: OAuthSettings): boolean {
  const confidential = typeof client.secretHash === 'string';
  return !(confidential && settings.allowConfidentialWithoutPkce);
}
