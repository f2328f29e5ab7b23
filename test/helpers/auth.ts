import { randomBytes } from 'node:crypto';
import { SCOPES, type Scope } from '../../src/auth/scopes.js';
import { createUser } from '../../src/modules/user/user.service.js';
import { createBusiness } from '../../src/modules/member/member.service.js';
import { createCredential } from '../../src/modules/oauth/credential.service.js';
import { KeyStore } from '../../src/modules/oauth/signing-key.service.js';
import { TokenService, type IssuedToken, type TokenGrant } from '../../src/modules/oauth/token.service.js';
import { useTestServer, type startTestServer, type TestServer } from './server.js';

export const TEST_PASSWORD = 'correct horse battery staple';
export const TEST_REDIRECT_URI = 'http://localhost:8765/callback';

export interface Tenant {
  businessId: string;
  userId: string;
  credentialId: string;
  token: string;
  headers: Record<string, string>;
  /** Also handy for OAuth tests: the user's sign-in and the credential's client authentication. */
  email: string;
  password: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
}

const tokenServices = new WeakMap<TestServer, TokenService>();

/** Signs with the same keys (the database's) and issuer as the server under test. */
export function tokenServiceFor(server: TestServer): TokenService {
  let service = tokenServices.get(server);
  if (!service) {
    service = new TokenService(server.orm.em, new KeyStore(server.orm.em), server.config.publicUrl);
    tokenServices.set(server, service);
  }
  return service;
}

/** A token as the token endpoint issues one (the signing key taken first, then its own transaction), without a grant's checks. */
export async function issueToken(server: TestServer, grant: TokenGrant): Promise<IssuedToken> {
  const tokens = tokenServiceFor(server);
  const signer = await tokens.signer();
  return server.orm.em.fork().transactional((tx) => tokens.issue(tx, signer, grant));
}

/** Headers with a token of `user` in `tenant`'s business, issued through the tenant's credential with exactly `scopes`. */
export async function headersOf(server: TestServer, tenant: Tenant, user: string, scopes: readonly Scope[], withRefreshToken = false) {
  const issued = await issueToken(server, {
    credential: tenant.credentialId,
    clientId: tenant.clientId,
    business: tenant.businessId,
    user,
    scopes,
    withRefreshToken,
  });
  return { authorization: `Bearer ${issued.accessToken}` };
}

/** An access token of `tenant`'s owner with `scopes` through a new credential `name` of the business: a quota of its own. */
export async function tokenOfNewCredential(server: TestServer, tenant: Tenant, name: string, scopes: Scope[]): Promise<string> {
  const { credential } = await createCredential(server.orm.em.fork(), {
    business: tenant.businessId,
    name,
    validRedirectUris: [TEST_REDIRECT_URI],
    createdBy: tenant.userId,
  });
  const issued = await issueToken(server, {
    credential: credential.id,
    clientId: credential.clientId,
    business: tenant.businessId,
    user: tenant.userId,
    scopes,
    withRefreshToken: false,
  });
  return issued.accessToken;
}

/**
 * A user, a business owned by them, a credential of that business, and an access token for them (every scope by
 * default). `headers` is ready for server.graphql(query, variables, headers).
 */
export async function createTenant(server: TestServer, options: { scopes?: Scope[]; businessName?: string; redirectUri?: string } = {}): Promise<Tenant> {
  const em = server.orm.em.fork();
  const email = `owner-${randomBytes(6).toString('hex')}@example.com`;
  const user = await createUser(em, { email, password: TEST_PASSWORD, name: 'Test Owner' });
  const { business } = await createBusiness(em, { name: options.businessName ?? 'Test Cafe', owner: user.id });
  const { credential, clientSecret } = await createCredential(em, {
    business: business.id,
    name: 'Test App',
    validRedirectUris: [options.redirectUri ?? TEST_REDIRECT_URI],
    createdBy: user.id,
  });
  const issued = await issueToken(server, {
    credential: credential.id,
    clientId: credential.clientId,
    business: business.id,
    user: user.id,
    scopes: options.scopes ?? [...SCOPES],
    withRefreshToken: false,
  });
  return {
    businessId: business.id,
    userId: user.id,
    credentialId: credential.id,
    token: issued.accessToken,
    headers: { authorization: `Bearer ${issued.accessToken}` },
    email,
    password: TEST_PASSWORD,
    clientId: credential.clientId,
    clientSecret,
    redirectUri: options.redirectUri ?? TEST_REDIRECT_URI,
  };
}

/** This file's server and a tenant on it: what most test files start from. */
export interface TenantServer {
  server: TestServer;
  tenant: Tenant;
}

/**
 * This file's server (useTestServer, with `options.server`) and a tenant on it (createTenant, with `options.tenant`):
 * the returned object's `server` and `tenant` are set before the first test runs, so tests and hooks read them there;
 * `ready` receives them and may prepare more.
 */
export function useTenantServer(
  options: { tenant?: Parameters<typeof createTenant>[1]; server?: Parameters<typeof startTestServer>[0] } = {},
  ready?: (fx: TenantServer) => unknown,
): TenantServer {
  const fx = {} as TenantServer;
  useTestServer(async (server) => {
    fx.server = server;
    fx.tenant = await createTenant(server, options.tenant);
    await ready?.(fx);
  }, options.server);
  return fx;
}
