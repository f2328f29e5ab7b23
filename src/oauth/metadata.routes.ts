import type Router from '@koa/router';
import { SCOPES } from '../auth/scopes.js';
import type { OAuthDeps } from './oauth.deps.js';

/** GET /oauth/certs (JWKS) and RFC 8414 metadata. */
export function metadataRoutes(router: Router, deps: OAuthDeps) {
  router.get('/oauth/certs', async (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.body = await deps.keys.jwks();
  });

  const issuer = deps.config.publicUrl;
  const metadata = {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    jwks_uri: `${issuer}/oauth/certs`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    introspection_endpoint: `${issuer}/oauth/introspect`,
    userinfo_endpoint: `${issuer}/oauth/me`,
    scopes_supported: [...SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    code_challenge_methods_supported: ['S256'],
    authorization_response_iss_parameter_supported: true,
    // A page this service serves (the API reference); the guides under docs/ are not served.
    service_documentation: `${issuer}/docs`,
  };
  router.get('/.well-known/oauth-authorization-server', (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = metadata;
  });
}
