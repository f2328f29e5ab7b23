import { randomBytes } from 'node:crypto';
import { createUser } from '../../src/modules/user/user.service.js';
import { createMember } from '../../src/modules/member/member.service.js';
import { createCredential } from '../../src/modules/oauth/credential.service.js';
import type { MembershipRole } from '../../src/modules/user/membership.entity.js';
import { scopesForRole } from '../../src/auth/roles.js';
import { createTenant, TEST_PASSWORD, type Tenant } from '../helpers/auth.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { authorizeCode, exchangeFields, postJson, refreshGrant, signedInToAuthorize } from '../oauth/oauth-helpers.js';

/** Where tokens are issued for a member, their role caps the scopes (src/auth/roles.ts). */
let server: TestServer;
let owner: Tenant;
useTestServer(async (s) => {
  server = s;
  owner = await createTenant(s, { businessName: 'Roles Cafe' });
});

async function member(role: MembershipRole) {
  const email = `${role}-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createUser(server.orm.em.fork(), { email, password: TEST_PASSWORD });
  await createMember(server.orm.em.fork(), owner.businessId, { email, role });
  return { ...owner, id: user.id, email, password: TEST_PASSWORD };
}

describe('authorization code for a member', () => {
  it('the consent page lists what the role does not allow, and the token carries only what it does', async () => {
    const staff = await member('staff');
    const { consent } = await signedInToAuthorize(server, owner, staff, { scope: 'surveys:read webhooks:write members:read', state: 's' });
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('your role (staff) does not allow');
    const [granted, dropped] = consent.html.split('does not allow');
    expect(granted).toContain('(surveys:read)');
    expect(granted).not.toContain('(webhooks:write)');
    expect(dropped).toContain('(webhooks:write)');
    expect(dropped).toContain('(members:read)');

    const callback = await authorizeCode(server, staff, { scope: 'surveys:read webhooks:write members:read' });
    const exchanged = await postJson(server, '/oauth/token', exchangeFields(callback, owner));
    expect(exchanged.status).toBe(200);
    expect(exchanged.body.scope).toEqual(['surveys:read']);
    // A refresh may not widen it either.
    const refreshed = await refreshGrant(server, owner, exchanged.body.refreshToken);
    expect(refreshed.body.scope).toEqual(['surveys:read']);
  });

  it('refuses on a page when the role allows none of the requested scopes', async () => {
    const staff = await member('staff');
    const { consent: page } = await signedInToAuthorize(server, owner, staff, { scope: 'members:write credentials:read', state: 's' });
    expect(page.status).toBe(403);
    expect(page.html).toContain('does not allow: credentials:read, members:write');
  });

  it('a code consented by a manager carries every scope but members:write', async () => {
    const manager = await member('manager');
    const callback = await authorizeCode(server, manager, { scope: 'members:read members:write orders:write' });
    const exchanged = await postJson(server, '/oauth/token', exchangeFields(callback, owner));
    expect(exchanged.body.scope).toEqual(['orders:write', 'members:read']);
  });
});

describe("introspection of a member's token", () => {
  it('reports the scopes the role allows now, not those the token was issued with', async () => {
    const staff = await member('staff');
    const { issueToken } = await import('../helpers/auth.js');
    const issued = await issueToken(server, {
      credential: owner.credentialId,
      clientId: owner.clientId,
      business: owner.businessId,
      user: staff.id,
      scopes: ['surveys:read', 'surveys:write'],
      withRefreshToken: false,
    });
    const answer = await postJson(server, '/oauth/introspect', { clientId: owner.clientId, clientSecret: owner.clientSecret, token: issued.accessToken });
    expect(answer.body).toMatchObject({ active: true, scope: 'surveys:read', sub: staff.id });
  });
});

describe('client credentials of a credential a member created', () => {
  it("get what the creator's role allows; naming a scope beyond it is invalid_scope", async () => {
    const staff = await member('staff');
    const { credential, clientSecret } = await createCredential(server.orm.em.fork(), {
      business: owner.businessId,
      name: 'Staff app',
      validRedirectUris: ['https://app.example.com/cb'],
      createdBy: staff.id,
    });
    const all = await postJson(server, '/oauth/token', { clientId: credential.clientId, clientSecret, grantType: 'client_credentials' });
    // The staff role's scopes, pinned scope by scope in members.test.ts.
    expect(all.body.scope).toEqual(scopesForRole('staff'));
    const beyond = await postJson(server, '/oauth/token', {
      clientId: credential.clientId,
      clientSecret,
      grantType: 'client_credentials',
      scope: 'orders:read orders:write',
    });
    expect(beyond.status).toBe(400);
    expect(beyond.body).toEqual({ error: 'invalid_scope', error_description: "The role of the credential's creator (staff) does not allow: orders:write" });
  });
});
