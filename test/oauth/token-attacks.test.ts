import { SCOPES } from '../../src/auth/scopes.js';
import { SignJWT, generateKeyPair, importJWK, type JWK } from 'jose';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, tokenServiceFor, type Tenant } from '../helpers/auth.js';
import { SigningKey } from '../../src/modules/oauth/signing-key.entity.js';
import { rotateKeysCommand } from '../../src/cli/rotate-keys.command.js';
import { BUSINESS_QUERY, authorizeCode, basic, pkcePair, postForm, postJson } from './oauth-helpers.js';

let server: TestServer;
let tenant: Tenant;
useTestServer(async (s) => {
  server = s;
  tenant = await createTenant(s);
});

const client = () => ({ clientId: tenant.clientId, clientSecret: tenant.clientSecret });
const exchange = (code: string, extra: Record<string, unknown> = {}) =>
  postJson(server, '/oauth/token', { ...client(), grantType: 'authorization_code', code, redirectUri: tenant.redirectUri, ...extra });
/** A code of the tenant's client, and the PKCE verifier it was requested with. */
const newCode = async () => {
  const callback = await authorizeCode(server, tenant);
  return { code: callback.searchParams.get('code')!, pkce: { codeVerifier: callback.codeVerifier } };
};
const expectOAuthError = (res: { status: number; body: any }, status: number, error: string) => {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error, error_description: expect.any(String) });
};
const graphqlCode = async (token: string) => {
  const res = await server.graphql(BUSINESS_QUERY, { id: tenant.businessId }, { authorization: `Bearer ${token}` });
  return res.body.errors?.[0]?.extensions.code ?? 'OK';
};

/** Signs with the server's own active private key, with any claims: for expiry and tampering tests. */
async function signWithServerKey(claims: Record<string, unknown>, header: Record<string, unknown> = {}) {
  const row = await server.orm.em.fork().findOneOrFail(SigningKey, { active: true }, { populate: ['privateJwk'] });
  const key = await importJWK(row.privateJwk as JWK, 'RS512');
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS512', kid: row.kid, typ: 'at+jwt', ...header }).sign(key);
}

function claimsOf(token: string) {
  return JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
}

describe('token endpoint: bad input', () => {
  it('wrong secret, unknown client, no client: 401 invalid_client', async () => {
    expectOAuthError(
      await postJson(server, '/oauth/token', { clientId: tenant.clientId, clientSecret: 'cs_wrong', grantType: 'client_credentials' }),
      401,
      'invalid_client',
    );
    expectOAuthError(await postJson(server, '/oauth/token', { clientId: 'nobody', clientSecret: 'x', grantType: 'client_credentials' }), 401, 'invalid_client');
    expectOAuthError(await postJson(server, '/oauth/token', { grantType: 'client_credentials' }), 401, 'invalid_client');
    const basicWrong = await postForm(server, '/oauth/token', { grant_type: 'client_credentials' }, basic(tenant.clientId, 'nope'));
    expectOAuthError(basicWrong, 401, 'invalid_client');
    expect(basicWrong.headers.get('www-authenticate')).toMatch(/^Basic/);
  });

  it('wrong or missing grant type, missing code', async () => {
    expectOAuthError(await postJson(server, '/oauth/token', { ...client(), grantType: 'password' }), 400, 'unsupported_grant_type');
    expectOAuthError(await postJson(server, '/oauth/token', { ...client() }), 400, 'invalid_request');
    expectOAuthError(await postJson(server, '/oauth/token', { ...client(), grantType: 'authorization_code' }), 400, 'invalid_request');
    expectOAuthError(await postJson(server, '/oauth/token', { ...client(), grantType: 'refresh_token' }), 400, 'invalid_request');
    expectOAuthError(await postJson(server, '/oauth/token', { ...client(), grantType: ['a', 'b'] }), 400, 'invalid_request');
    expectOAuthError(await exchange('ac_unknown'), 400, 'invalid_grant');
  });

  it('oversized, malformed and non-form bodies get RFC 6749 errors, never a 500', async () => {
    const big = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grantType: 'x', pad: 'x'.repeat(1024 * 1024 + 10) }),
    });
    expect(big.status).toBe(413);
    expect((await big.json()).error).toBe('invalid_request');
    const malformed = await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"grantType": ' });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error).toBe('invalid_request');
    const text = await fetch(`${server.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(text.status).toBe(415);
    expect((await text.json()).error).toBe('invalid_request');
    const empty = await fetch(`${server.url}/oauth/token`, { method: 'POST' });
    expect(empty.status).toBe(400);
  });

  it('client credentials: Token object for the creator, no refresh token, scopes checked', async () => {
    const res = await postJson(server, '/oauth/token', { ...client(), grantType: 'client_credentials', scope: 'surveys:read,orders:read' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(
      expect.objectContaining({ user: tenant.userId, credential: tenant.credentialId, refreshToken: null, scope: ['surveys:read', 'orders:read'] }),
    );
    expect(await graphqlCode(res.body.accessToken)).toBe('OK');
    expectOAuthError(
      await postJson(server, '/oauth/token', { ...client(), grantType: 'client_credentials', scope: 'surveys:read,root' }),
      400,
      'invalid_scope',
    );
    const all = await postForm(server, '/oauth/token', { grant_type: 'client_credentials', client_id: tenant.clientId, client_secret: tenant.clientSecret });
    expect(all.status).toBe(200);
    expect(all.body.scope.split(' ')).toHaveLength(SCOPES.length); // the creator is the owner: every scope
    expect(all.body.refresh_token).toBeUndefined();
  });
});

describe('authorization codes', () => {
  it('a replayed code fails and revokes the tokens it issued', async () => {
    const { code, pkce } = await newCode();
    const first = await exchange(code, pkce);
    expect(first.status).toBe(200);
    expect(await graphqlCode(first.body.accessToken)).toBe('OK');
    expectOAuthError(await exchange(code, pkce), 400, 'invalid_grant');
    expect(await graphqlCode(first.body.accessToken)).toBe('UNAUTHENTICATED');
    expectOAuthError(
      await postJson(server, '/oauth/token', { ...client(), grantType: 'refresh_token', refreshToken: first.body.refreshToken }),
      400,
      'invalid_grant',
    );
  });

  it('a code used by another client, or with another redirect URI, is refused', async () => {
    const other = await createTenant(server);
    const { code, pkce } = await newCode();
    expectOAuthError(
      await postJson(server, '/oauth/token', {
        clientId: other.clientId,
        clientSecret: other.clientSecret,
        grantType: 'authorization_code',
        code,
        redirectUri: tenant.redirectUri,
        ...pkce,
      }),
      400,
      'invalid_grant',
    );
    expectOAuthError(await exchange(code, { ...pkce, redirectUri: 'http://localhost:8765/other' }), 400, 'invalid_grant');
    // Another redirect URI is refused in a form body too (leaving it out is the interface document's flow: document-flow.test.ts).
    expectOAuthError(
      await postForm(server, '/oauth/token', {
        grant_type: 'authorization_code',
        code,
        client_id: tenant.clientId,
        client_secret: tenant.clientSecret,
        code_verifier: pkce.codeVerifier!,
        redirect_uri: 'http://localhost:8765/other',
      }),
      400,
      'invalid_grant',
    );
    expect((await exchange(code, pkce)).status).toBe(200);
  });

  it('PKCE: a wrong or missing verifier is refused', async () => {
    const { verifier, challenge } = pkcePair();
    const code = (await authorizeCode(server, tenant, { code_challenge: challenge, code_challenge_method: 'S256' })).searchParams.get('code')!;
    expectOAuthError(await exchange(code), 400, 'invalid_grant');
    expectOAuthError(await exchange(code, { codeVerifier: pkcePair().verifier }), 400, 'invalid_grant');
    expect((await exchange(code, { codeVerifier: verifier })).status).toBe(200);
    // Without a challenge there is no code at all: test/abuse/oauth-strict.test.ts.
  });

  it('an expired code is refused', async () => {
    const { code, pkce } = await newCode();
    await server.orm.em.getConnection().execute(`update oauth_authorization_code set expires_at = now() - interval '1 second' where used_at is null`);
    expectOAuthError(await exchange(code, pkce), 400, 'invalid_grant');
  });
});

describe('refresh tokens', () => {
  it('reuse of a rotated refresh token revokes the whole family', async () => {
    const { code, pkce } = await newCode();
    const first = (await exchange(code, pkce)).body;
    const refresh = (r: string) => postJson(server, '/oauth/token', { ...client(), grantType: 'refresh_token', refreshToken: r });
    const second = (await refresh(first.refreshToken)).body;
    expect(second.accessToken).toBeDefined();
    expect(await graphqlCode(second.accessToken)).toBe('OK');
    expectOAuthError(await refresh(first.refreshToken), 400, 'invalid_grant');
    expect(await graphqlCode(second.accessToken)).toBe('UNAUTHENTICATED');
    expectOAuthError(await refresh(second.refreshToken), 400, 'invalid_grant');
  });

  it('another client cannot use it, and scopes can only shrink', async () => {
    const other = await createTenant(server);
    const { code, pkce } = await newCode();
    const first = (await exchange(code, pkce)).body;
    expectOAuthError(
      await postJson(server, '/oauth/token', {
        clientId: other.clientId,
        clientSecret: other.clientSecret,
        grantType: 'refresh_token',
        refreshToken: first.refreshToken,
      }),
      400,
      'invalid_grant',
    );
    expectOAuthError(
      await postJson(server, '/oauth/token', { ...client(), grantType: 'refresh_token', refreshToken: first.refreshToken, scope: 'orders:write' }),
      400,
      'invalid_scope',
    );
    const narrowed = await postJson(server, '/oauth/token', {
      ...client(),
      grantType: 'refresh_token',
      refreshToken: first.refreshToken,
      scope: 'surveys:read',
    });
    expect(narrowed.body.scope).toEqual(['surveys:read']);
  });
});

describe('access tokens that must be refused', () => {
  it('unknown key, alg none, HS256, tampered payload, expired, wrong issuer', async () => {
    const good = claimsOf(tenant.token);
    const now = Math.floor(Date.now() / 1000);
    const { privateKey } = await generateKeyPair('RS512');
    const unknownKey = await new SignJWT(good).setProtectedHeader({ alg: 'RS512', kid: 'not-ours', typ: 'at+jwt' }).sign(privateKey);
    const header = JSON.parse(Buffer.from(tenant.token.split('.')[0], 'base64url').toString());
    const forgedKid = await new SignJWT(good).setProtectedHeader({ alg: 'RS512', kid: header.kid, typ: 'at+jwt' }).sign(privateKey);
    const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const none = `${b64({ alg: 'none', typ: 'at+jwt' })}.${b64(good)}.`;
    const hs256 = await new SignJWT(good)
      .setProtectedHeader({ alg: 'HS256', kid: header.kid, typ: 'at+jwt' })
      .sign(new TextEncoder().encode('a shared secret that is long enough for HS256'));
    const [h, , s] = tenant.token.split('.');
    const tampered = `${h}.${b64({ ...good, bus: 'bus_01ARZ3NDEKTSV4RRFFQ69G5FAV', scope: 'credentials:write' })}.${s}`;
    const expired = await signWithServerKey({ ...good, iat: now - 7200, exp: now - 3600 });
    const wrongIssuer = await signWithServerKey({ ...good, iss: 'https://evil.example' });
    const noTyp = await signWithServerKey(good, { typ: 'JWT' });
    for (const [label, token] of Object.entries({ unknownKey, forgedKid, none, hs256, tampered, expired, wrongIssuer, noTyp, garbage: 'abc.def.ghi' })) {
      const res = await server.graphql(BUSINESS_QUERY, { id: tenant.businessId }, { authorization: `Bearer ${token}` });
      expect([label, res.body.errors?.[0]?.extensions.code]).toEqual([label, 'UNAUTHENTICATED']);
      const me = await fetch(`${server.url}/oauth/me`, { headers: { authorization: `Bearer ${token}` } });
      expect([label, me.status]).toEqual([label, 401]);
    }
    const expiredRes = await server.graphql(BUSINESS_QUERY, { id: tenant.businessId }, { authorization: `Bearer ${expired}` });
    expect(expiredRes.body.errors[0].message).toMatch(/expired/);
    expect(await graphqlCode(tenant.token)).toBe('OK');
  });

  it('a revoked access token stops working at once', async () => {
    const t = await createTenant(server);
    expect((await server.graphql(BUSINESS_QUERY, { id: t.businessId }, t.headers)).body.data.business.id).toBe(t.businessId);
    const res = await postForm(server, '/oauth/revoke', { token: t.token, token_type_hint: 'access_token' }, basic(t.clientId, t.clientSecret));
    expect(res.status).toBe(200);
    const after = await server.graphql(BUSINESS_QUERY, { id: t.businessId }, t.headers);
    expect(after.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    // Unknown tokens are a 200 too; revocation needs client authentication.
    expect((await postJson(server, '/oauth/revoke', { clientId: t.clientId, clientSecret: t.clientSecret, token: 'whatever' })).status).toBe(200);
    expectOAuthError(await postJson(server, '/oauth/revoke', { token: t.token }), 401, 'invalid_client');
  });

  it('another client cannot revoke a token it did not mint', async () => {
    const a = await createTenant(server);
    const b = await createTenant(server);
    expect((await postJson(server, '/oauth/revoke', { clientId: b.clientId, clientSecret: b.clientSecret, token: a.token })).status).toBe(200);
    expect((await server.graphql(BUSINESS_QUERY, { id: a.businessId }, a.headers)).body.data.business.id).toBe(a.businessId);
  });

  it("a removed membership ends the user's tokens within 5 seconds", async () => {
    const t = await createTenant(server);
    expect((await server.graphql(BUSINESS_QUERY, { id: t.businessId }, t.headers)).body.data).toBeTruthy();
    await server.orm.em.getConnection().execute(`delete from membership where user_id = '${t.userId}'`);
    await new Promise((r) => setTimeout(r, 2_100));
    const after = await server.graphql(BUSINESS_QUERY, { id: t.businessId }, t.headers);
    expect(after.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(after.body.errors[0].message).toMatch(/no longer a member/);
    expectOAuthError(
      await postJson(server, '/oauth/token', { clientId: t.clientId, clientSecret: t.clientSecret, grantType: 'client_credentials' }),
      400,
      'unauthorized_client',
    );
  });

  it('a deleted credential ends every token it minted', async () => {
    const owner = await createTenant(server);
    const created = await server.graphql(
      'mutation($b: ID!) { createCredential(business: $b, input: {name: "Temp", validRedirectUris: ["https://app.example/cb"]}) { id clientId clientSecret } }',
      { b: owner.businessId },
      owner.headers,
    );
    const cred = created.body.data.createCredential;
    const minted = await postJson(server, '/oauth/token', { clientId: cred.clientId, clientSecret: cred.clientSecret, grantType: 'client_credentials' });
    const headers = { authorization: `Bearer ${minted.body.accessToken}` };
    expect((await server.graphql(BUSINESS_QUERY, { id: owner.businessId }, headers)).body.data.business.id).toBe(owner.businessId);
    const deleted = await server.graphql(
      'mutation($b: ID!, $id: ID!) { deleteCredential(business: $b, id: $id) }',
      { b: owner.businessId, id: cred.id },
      owner.headers,
    );
    expect(deleted.body.data.deleteCredential).toBe(cred.id);
    const after = await server.graphql(BUSINESS_QUERY, { id: owner.businessId }, headers);
    expect(after.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expectOAuthError(
      await postJson(server, '/oauth/token', { clientId: cred.clientId, clientSecret: cred.clientSecret, grantType: 'client_credentials' }),
      401,
      'invalid_client',
    );
  });
});

describe('introspection, certificates, metadata, key rotation', () => {
  it('introspects tokens of its own business only', async () => {
    const t = await createTenant(server, { scopes: ['surveys:read'] });
    const res = await postForm(server, '/oauth/introspect', { token: t.token }, basic(t.clientId, t.clientSecret));
    expect(res.body).toEqual(expect.objectContaining({ active: true, scope: 'surveys:read', sub: t.userId, business: t.businessId, token_type: 'Bearer' }));
    // `client_id` agrees with the token's own claim: the OAuth client id (RFC 7662, RFC 9068); `credential` is the cred_ id.
    const claims = JSON.parse(Buffer.from(t.token.split('.')[1], 'base64url').toString());
    expect(claims.client_id).toBe(t.clientId);
    expect(res.body).toEqual(expect.objectContaining({ client_id: t.clientId, credential: t.credentialId }));
    const other = await createTenant(server);
    expect((await postForm(server, '/oauth/introspect', { token: t.token }, basic(other.clientId, other.clientSecret))).body).toEqual({ active: false });
    expect((await postForm(server, '/oauth/introspect', { token: 'nonsense' }, basic(t.clientId, t.clientSecret))).body).toEqual({ active: false });
  });

  it('publishes JWKS and RFC 8414 metadata', async () => {
    const certs = await (await fetch(`${server.url}/oauth/certs`)).json();
    expect(certs.keys[0]).toEqual(expect.objectContaining({ kty: 'RSA', alg: 'RS512', use: 'sig', kid: expect.any(String), n: expect.any(String), e: 'AQAB' }));
    expect(certs.keys[0].d).toBeUndefined();
    const meta = await (await fetch(`${server.url}/.well-known/oauth-authorization-server`)).json();
    expect(meta).toEqual(
      expect.objectContaining({
        issuer: server.config.publicUrl,
        token_endpoint: `${server.config.publicUrl}/oauth/token`,
        jwks_uri: `${server.config.publicUrl}/oauth/certs`,
        code_challenge_methods_supported: ['S256'],
        service_documentation: `${server.config.publicUrl}/docs`,
      }),
    );
    // The documentation the metadata points to is a page this server really serves.
    const docs = await fetch(`${server.url}${new URL(meta.service_documentation).pathname}`);
    expect(docs.status).toBe(200);
    expect(docs.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('rotate-keys: new tokens use the new key, old tokens keep working, both keys are published', async () => {
    const before = await createTenant(server);
    const oldKid = JSON.parse(Buffer.from(before.token.split('.')[0], 'base64url').toString()).kid;
    const result = (await rotateKeysCommand.run({}, server.orm)) as { kid: string; retired: string[] };
    expect(result.retired).toContain(oldKid);
    const after = await postJson(server, '/oauth/token', { clientId: before.clientId, clientSecret: before.clientSecret, grantType: 'client_credentials' });
    // The server may sign with its cached key for up to a minute; either way its tokens verify.
    const beforeQuery = (headers: Record<string, string>) => server.graphql(BUSINESS_QUERY, { id: before.businessId }, headers);
    expect((await beforeQuery({ authorization: `Bearer ${after.body.accessToken}` })).body.data.business.id).toBe(before.businessId);
    expect((await beforeQuery(before.headers)).body.data.business.id).toBe(before.businessId);
    // Another process (here the test helper) signing with the new key: the server loads the unknown kid.
    tokenServiceFor(server).keys.reset();
    const fresh = await createTenant(server);
    expect(JSON.parse(Buffer.from(fresh.token.split('.')[0], 'base64url').toString()).kid).toBe(result.kid);
    expect((await server.graphql(BUSINESS_QUERY, { id: fresh.businessId }, fresh.headers)).body.data.business.id).toBe(fresh.businessId);
    const kids = (await (await fetch(`${server.url}/oauth/certs`)).json()).keys.map((k: { kid: string }) => k.kid);
    expect(kids).toEqual(expect.arrayContaining([oldKid, result.kid]));
  });
});
