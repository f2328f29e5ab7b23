import * as oauth from 'oauth4webapi';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { BUSINESS_QUERY, Browser, hiddenField, signIn } from './oauth-helpers.js';

/**
 * The same flow driven by a standard OAuth client library nobody here wrote (oauth4webapi), with tokens verified by
 * jose's remote JWKS against /oauth/certs. The server's PUBLIC_URL (the issuer) differs from the test port, so the
 * library's fetches are sent to the test server.
 */
let server: TestServer;
let tenant: Tenant;
let options: { [oauth.customFetch]: typeof fetch; [oauth.allowInsecureRequests]: true };
beforeAll(async () => {
  server = await startTestServer();
  tenant = await createTenant(server, { businessName: 'Library Bistro' });
  const toServer = (url: string) => url.replace(server.config.publicUrl, server.url);
  options = {
    [oauth.customFetch]: ((url: string, init: RequestInit) => fetch(toServer(url), init)) as typeof fetch,
    [oauth.allowInsecureRequests]: true,
  };
});
afterAll(() => server?.stop());

it('authorization code + PKCE, refresh, introspection and revocation with oauth4webapi; JWT verified with createRemoteJWKSet', async () => {
  const issuer = new URL(server.config.publicUrl);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options }));
  expect(as.code_challenge_methods_supported).toContain('S256');
  const client: oauth.Client = { client_id: tenant.clientId };
  const clientAuth = oauth.ClientSecretBasic(tenant.clientSecret);

  const codeVerifier = oauth.generateRandomCodeVerifier();
  const codeChallenge = await oauth.calculatePKCECodeChallenge(codeVerifier);
  const state = oauth.generateRandomState();
  const authorizationUrl = new URL(as.authorization_endpoint!);
  authorizationUrl.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: tenant.redirectUri,
    response_type: 'code',
    scope: 'surveys:read credentials:read',
    code_challenge: codeChallenge,
    code_challenge_method: 'S256',
    state,
  }).toString();

  // The user's part, in a browser.
  const browser = new Browser();
  const url = authorizationUrl.toString().replace(server.config.publicUrl, server.url);
  const consent = await signIn(server, browser, url, tenant);
  const allowed = await browser.postForm(url, { csrf: hiddenField(consent.html, 'csrf'), action: 'consent', decision: 'allow' });
  const callbackUrl = new URL(allowed.headers.get('location')!);

  const params = oauth.validateAuthResponse(as, client, callbackUrl, state);
  const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, tenant.redirectUri, codeVerifier, options);
  const result = await oauth.processAuthorizationCodeResponse(as, client, response);
  expect(result.token_type).toBe('bearer');
  expect(result.expires_in).toBe(3600);
  expect(result.scope).toBe('surveys:read credentials:read');
  expect(result.refresh_token).toBeDefined();

  const jwks = createRemoteJWKSet(new URL(`${server.url}/oauth/certs`));
  const { payload, protectedHeader } = await jwtVerify(result.access_token, jwks, { issuer: server.config.publicUrl, algorithms: ['RS512'] });
  expect(protectedHeader.alg).toBe('RS512');
  expect(payload).toEqual(
    expect.objectContaining({
      sub: tenant.userId,
      bus: tenant.businessId,
      cid: tenant.credentialId,
      scope: 'surveys:read credentials:read',
      jti: expect.stringMatching(/^tk_/),
    }),
  );
  expect(payload.exp! - payload.iat!).toBe(3600);

  const api = await server.graphql(BUSINESS_QUERY, { id: tenant.businessId }, { authorization: `Bearer ${result.access_token}` });
  expect(api.body.data.business.name).toBe('Library Bistro');

  const refreshed = await oauth.processRefreshTokenResponse(
    as,
    client,
    await oauth.refreshTokenGrantRequest(as, client, clientAuth, result.refresh_token!, options),
  );
  expect(refreshed.refresh_token).not.toBe(result.refresh_token);
  await jwtVerify(refreshed.access_token, jwks, { issuer: server.config.publicUrl, algorithms: ['RS512'] });

  const introspected = await oauth.processIntrospectionResponse(
    as,
    client,
    await oauth.introspectionRequest(as, client, clientAuth, refreshed.access_token, options),
  );
  expect(introspected.active).toBe(true);
  expect(introspected.sub).toBe(tenant.userId);

  await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, options));
  const after = await server.graphql(BUSINESS_QUERY, { id: tenant.businessId }, { authorization: `Bearer ${refreshed.access_token}` });
  expect(after.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  const inactive = await oauth.processIntrospectionResponse(
    as,
    client,
    await oauth.introspectionRequest(as, client, clientAuth, refreshed.access_token, options),
  );
  expect(inactive.active).toBe(false);
});

it('client credentials with oauth4webapi (client_secret_post)', async () => {
  const issuer = new URL(server.config.publicUrl);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options }));
  const client: oauth.Client = { client_id: tenant.clientId };
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    client,
    oauth.ClientSecretPost(tenant.clientSecret),
    new URLSearchParams({ scope: 'surveys:read' }),
    options,
  );
  const result = await oauth.processClientCredentialsResponse(as, client, response);
  expect(result.scope).toBe('surveys:read');
  expect(result.refresh_token).toBeUndefined();
  // A wrong secret is an OAuth error the library understands.
  const bad = await oauth.clientCredentialsGrantRequest(as, client, oauth.ClientSecretPost('cs_wrong'), new URLSearchParams(), options);
  await expect(oauth.processClientCredentialsResponse(as, client, bad)).rejects.toMatchObject({ error: 'invalid_client' });
});
