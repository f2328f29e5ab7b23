/** The oauth module's door: what other modules and the doors use of it. Its other files are its own. */
export { AuthorizationCode } from './authorization-code.entity.js';
export { Credential, PORTAL_CLIENT_ID, PORTAL_CREDENTIAL_ID } from './credential.entity.js';
export { CredentialResolver } from './credential.resolver.js';
export { createCredential, credentialsActingFor, presentCredential } from './credential.service.js';
export { clientCredentialsToken, exchangeAuthorizationCode, refreshTokens } from './grant.service.js';
export { OAuthError } from './oauth-errors.presenter.js';
export { OAuthToken } from './oauth-token.entity.js';
export { AUTHORIZATION_CODE_TTL_S, MAX_FAILURES, SESSION_TTL_S, THROTTLE_WINDOW_MS } from './oauth.model.js';
export { clearThrottle, countThrottleFailure, throttleFailures } from './oauth.repo.js';
export { strictClient } from './pkce.rules.js';
export { schedulePurge } from './purge.service.js';
export { forgetMemberTokens, revokeTokens } from './revocation.service.js';
export { SCOPE_DESCRIPTIONS, orderScopes, splitScopes, unknownScopes } from './scope.rules.js';
export { KeyStore, ensureActiveSigningKey, rotateSigningKey } from './signing-key.service.js';
export { TokenService, presentToken, presentTokenRfc } from './token.service.js';
