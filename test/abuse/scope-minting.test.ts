import { randomBytes } from 'node:crypto';
import { SCOPES, type Scope } from '../../src/auth/scopes.js';
import { createUser } from '../../src/modules/user/user.service.js';
import { createMember } from '../../src/modules/member/member.service.js';
import type { MembershipRole } from '../../src/modules/user/membership.entity.js';
import { createTenant, headersOf, type Tenant, TEST_PASSWORD } from '../helpers/auth.js';
import { client } from '../helpers/graphql.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { expectError, rest } from '../rest/rest.helpers.js';
import { postJson } from '../oauth/oauth-helpers.js';

/**
 * Issue 33, "a token can never mint more than it holds": a credential made with a token carries at most that token's
 * scopes, and client_credentials grants at most what the credential carries and its creator's role allows now.
 */
let server: TestServer;
let owner: Tenant;
useTestServer(async (s) => {
  server = s;
  owner = await createTenant(s, { businessName: 'Minting Cafe' });
});

/** An access token of `user` in the owner's business carrying exactly `scopes` (as a consent to only them would give). */
const tokenOf = (user: string, scopes: readonly Scope[]) => headersOf(server, owner, user, scopes);

async function member(role: MembershipRole) {
  const email = `${role}-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createUser(server.orm.em.fork(), { email, password: TEST_PASSWORD });
  const created = await createMember(server.orm.em.fork(), owner.businessId, { email, role });
  return { userId: user.id, memberId: created.id };
}

const CREATE = `mutation($b: ID!, $i: CreateCredentialInput!) { createCredential(business: $b, input: $i) { id clientId clientSecret } }`;
const clientCredentials = (cred: { clientId: string; clientSecret: string }, scope?: string) =>
  postJson(server, '/oauth/token', { grantType: 'client_credentials', clientId: cred.clientId, clientSecret: cred.clientSecret, ...(scope ? { scope } : {}) });

describe('a credential created with a token', () => {
  it('mints at most the scopes of the token that created it: the probe of the issue', async () => {
    const narrow = client(server, await tokenOf(owner.userId, ['credentials:read', 'credentials:write']));
    const cred = (await narrow.data(CREATE, { b: owner.businessId, i: { name: 'Narrow', validRedirectUris: ['https://app.example.com/cb'] } }))
      .createCredential;

    // Asked for nothing: what the creating token held, not every scope of the owner's role.
    const plain = await clientCredentials(cred);
    expect(plain.status).toBe(200);
    expect(plain.body.scope).toEqual(['credentials:read', 'credentials:write']);

    // Asked for every scope: refused, naming what the credential does not carry.
    const all = await clientCredentials(cred, SCOPES.join(' '));
    expect(all.status).toBe(400);
    expect(all.body.error).toBe('invalid_scope');
    expect(all.body.error_description).toContain('members:write');
    expect(all.body.error_description).toContain('orders:read');
    expect(all.body.error_description).not.toContain('credentials:read');

    // Asked for a part of it: that part.
    expect((await clientCredentials(cred, 'credentials:read')).body.scope).toEqual(['credentials:read']);

    // And the token it mints cannot read what the creating token could not.
    const minted = client(server, { authorization: `Bearer ${plain.body.accessToken}` });
    expect((await minted.error(`query($b: ID!) { orders(business: $b) { total } }`, { b: owner.businessId })).code).toBe('FORBIDDEN');
  });

  it('stores and shows its scopes; a requested list is kept within the creating token (400 naming the field)', async () => {
    const headers = await tokenOf(owner.userId, ['credentials:read', 'credentials:write', 'orders:read']);
    const gql = client(server, headers);
    const made = (
      await gql.data(`mutation($b: ID!, $i: CreateCredentialInput!) { createCredential(business: $b, input: $i) { id scopes clientId clientSecret } }`, {
        b: owner.businessId,
        i: { name: 'Orders reader', validRedirectUris: ['https://app.example.com/cb'], scopes: ['orders:read'] },
      })
    ).createCredential;
    expect(made.scopes).toEqual(['orders:read']);
    expect((await clientCredentials(made)).body.scope).toEqual(['orders:read']);
    const read = await gql.data(`query($b: ID!, $id: ID!) { credential(business: $b, id: $id) { scopes } }`, { b: owner.businessId, id: made.id });
    expect(read.credential.scopes).toEqual(['orders:read']);

    const beyond = await gql.error(CREATE, {
      b: owner.businessId,
      i: { name: 'Wider', validRedirectUris: ['https://app.example.com/cb'], scopes: ['orders:read', 'members:write'] },
    });
    expect(beyond.code).toBe('BAD_USER_INPUT');
    expect(beyond.details).toEqual([expect.objectContaining({ field: 'scopes', message: expect.stringContaining('members:write') })]);
    const unknown = await gql.error(CREATE, {
      b: owner.businessId,
      i: { name: 'Odd', validRedirectUris: ['https://app.example.com/cb'], scopes: ['orders:everything'] },
    });
    expect(unknown.details).toEqual([expect.objectContaining({ field: 'scopes', message: expect.stringContaining('orders:everything') })]);

    // REST: the same rules, the same body.
    const path = `/v2/businesses/${owner.businessId}/credentials`;
    const created = await rest(server, 'POST', path, { headers, body: { name: 'REST app', validRedirectUris: ['https://app.example.com/cb'] } });
    expect(created.status).toBe(201);
    expect(created.body.data.scopes).toEqual(['orders:read', 'credentials:read', 'credentials:write']);
    const refused = await rest(server, 'POST', path, {
      headers,
      body: { name: 'REST app', validRedirectUris: ['https://app.example.com/cb'], scopes: ['surveys:write'] },
    });
    expectError(refused, 400, 'validation_failed');
    expect(refused.body.error.details).toEqual([expect.objectContaining({ field: 'scopes', message: expect.stringContaining('surveys:write') })]);
  });

  it("of a member later demoted to staff, mints at most staff's scopes", async () => {
    const manager = await member('manager');
    const managerApi = client(server, await tokenOf(manager.userId, ['credentials:write', 'orders:read', 'orders:write', 'surveys:read', 'webhooks:write']));
    const cred = (await managerApi.data(CREATE, { b: owner.businessId, i: { name: 'Manager app', validRedirectUris: ['https://app.example.com/cb'] } }))
      .createCredential;
    expect((await clientCredentials(cred)).body.scope).toEqual(['surveys:read', 'orders:read', 'orders:write', 'webhooks:write', 'credentials:write']);

    const ownerApi = client(server, owner.headers);
    await ownerApi.data(`mutation($b: ID!, $id: ID!) { updateMember(business: $b, id: $id, input: {role: staff}) { role } }`, {
      b: owner.businessId,
      id: manager.memberId,
    });

    // The credential's scopes, within what staff may hold now.
    expect((await clientCredentials(cred)).body.scope).toEqual(['surveys:read', 'orders:read']);
    const write = await clientCredentials(cred, 'orders:write');
    expect(write.status).toBe(400);
    expect(write.body).toEqual({ error: 'invalid_scope', error_description: expect.stringContaining('orders:write') });
    // A staff-allowed scope the credential never carried is not granted either.
    const submissions = await clientCredentials(cred, 'submissions:read');
    expect(submissions.status).toBe(400);
    expect(submissions.body.error).toBe('invalid_scope');
  });
});
