import { randomBytes } from 'node:crypto';
import { SCOPES, type Scope } from '../../src/auth/scopes.js';
import { createUser } from '../../src/modules/user/user.service.js';
import { createMember } from '../../src/modules/member/member.service.js';
import { scopesForRole } from '../../src/auth/roles.js';
import type { MembershipRole } from '../../src/modules/user/membership.entity.js';
import { OAuthToken } from '../../src/modules/oauth/oauth-token.entity.js';
import { createTenant, headersOf, type Tenant } from '../helpers/auth.js';
import { client } from '../helpers/graphql.js';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { expectError, rest } from '../rest/rest.helpers.js';
import { countStatements } from '../helpers/sql-counter.js';

let server: TestServer;
let owner: Tenant;
let other: Tenant;
useTestServer(async (s) => {
  server = s;
  owner = await createTenant(s, { businessName: 'Members Cafe' });
  other = await createTenant(s, { businessName: 'Elsewhere' });
});

const M = 'id object user email name role createdAt updatedAt business { id }';

async function newUser(name = 'Staff Person') {
  const email = `member-${randomBytes(5).toString('hex')}@Example.com`;
  const user = await createUser(server.orm.em.fork(), { email, password: 'a long passphrase', name });
  return { id: user.id, email: email.toLowerCase() };
}

/** A token of `user` for the owner's business, carrying `scopes` (by default every scope, whatever the role). */
const tokenFor = (user: string, scopes: readonly Scope[] = SCOPES) => headersOf(server, owner, user, scopes, true);

const base = () => `/v2/businesses/${owner.businessId}/members`;

/** A member as the operator adds one (the admin CLI): a token only invites, and the person joins by accepting. */
const join = (email: string, role: MembershipRole) => createMember(server.orm.em.fork(), owner.businessId, { email, role });

describe('members over REST', () => {
  it("lists the owner; POST invites an existing user (no member yet); a member's role changes, they are removed: each recorded as an event", async () => {
    const listed = await rest(server, 'GET', base(), { tenant: owner });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({
      object: 'list',
      total: 1,
      data: [{ object: 'member', user: owner.userId, email: owner.email, name: 'Test Owner', role: 'owner', business: owner.businessId }],
    });
    expect(listed.body.data[0].id).toMatch(/^mem_[0-9A-Z]{26}$/);

    const person = await newUser();
    const invited = await rest(server, 'POST', base(), { tenant: owner, body: { email: person.email.toUpperCase(), role: 'staff' } });
    expect(invited.status).toBe(201);
    expect(invited.body).toEqual({
      object: 'invitation',
      data: {
        id: expect.stringMatching(/^inv_/),
        object: 'invitation',
        business: owner.businessId,
        email: person.email,
        role: 'staff',
        invitedBy: owner.userId,
        expiresAt: expect.any(Number),
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      },
    });
    expect((await rest(server, 'GET', base(), { tenant: owner })).body.total).toBe(1);
    expect((await rest(server, 'DELETE', `/v2/businesses/${owner.businessId}/invitations/${invited.body.data.id}`, { tenant: owner })).status).toBe(204);

    const id = (await join(person.email, 'staff')).id;
    expect((await rest(server, 'GET', `${base()}/${id}`, { tenant: owner })).body.data).toEqual({
      id,
      object: 'member',
      business: owner.businessId,
      user: person.id,
      email: person.email,
      name: 'Staff Person',
      role: 'staff',
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });

    const patched = await rest(server, 'PATCH', `${base()}/${id}`, { tenant: owner, body: { role: 'manager' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id, role: 'manager', email: person.email });
    expect((await rest(server, 'GET', `${base()}/${id}`, { tenant: owner })).body.data.role).toBe('manager');

    const filtered = await rest(server, 'GET', `${base()}?filters=${encodeURIComponent(JSON.stringify({ field: 'role', type: 'eq', value: 'manager' }))}`, {
      tenant: owner,
    });
    expect(filtered.body.data.map((m: { id: string }) => m.id)).toEqual([id]);

    expect((await rest(server, 'DELETE', `${base()}/${id}`, { tenant: owner })).status).toBe(204);
    expectError(await rest(server, 'GET', `${base()}/${id}`, { tenant: owner }), 404, 'not_found');

    const events = await server.orm.em.fork().getConnection().execute(`select type, data from event where data->'object'->>'id' = ? order by id`, [id]);
    expect(events.map((e: any) => e.type)).toEqual(['member.created', 'member.updated', 'member.deleted']);
    expect(events[1].data.object).toMatchObject({ object: 'member', role: 'manager', email: person.email, user: person.id });
  });

  it('refuses a malformed e-mail, a bad role, a second membership, and ids of another kind or business', async () => {
    expectError(await rest(server, 'POST', base(), { tenant: owner, body: { email: 'nobody', role: 'staff' } }), 400, 'validation_failed');
    const bad = await rest(server, 'POST', base(), { tenant: owner, body: { email: owner.email, role: 'admin' } });
    expectError(bad, 400);
    expect(JSON.stringify(bad.body)).toContain('role');
    // A member already (the owner themself): the owner can see as much in the list, so the conflict tells nothing new.
    expectError(await rest(server, 'POST', base(), { tenant: owner, body: { email: owner.email, role: 'staff' } }), 409, 'conflict');
    expectError(await rest(server, 'PATCH', `${base()}/sur_01ARZ3NDEKTSV4RRFFQ69G5FAV`, { tenant: owner, body: { role: 'staff' } }), 404, 'not_found');
    const theirs = (await rest(server, 'GET', `/v2/businesses/${other.businessId}/members`, { tenant: other })).body.data[0].id;
    expectError(await rest(server, 'DELETE', `${base()}/${theirs}`, { tenant: owner }), 404, 'not_found');
    expectError(await rest(server, 'GET', `/v2/businesses/${other.businessId}/members`, { tenant: owner }), 403, 'forbidden');
  });

  it('keeps the last owner: neither demoted nor removed (409); with a second owner, either may go', async () => {
    const mine = (
      await rest(server, 'GET', `${base()}?filters=${encodeURIComponent(JSON.stringify({ field: 'role', type: 'eq', value: 'owner' }))}`, { tenant: owner })
    ).body.data;
    expect(mine).toHaveLength(1);
    const demote = await rest(server, 'PATCH', `${base()}/${mine[0].id}`, { tenant: owner, body: { role: 'manager' } });
    expectError(demote, 409, 'conflict');
    expect(demote.body.error.message).toMatch(/last owner/);
    expectError(await rest(server, 'DELETE', `${base()}/${mine[0].id}`, { tenant: owner }), 409, 'conflict');

    const second = await newUser('Second Owner');
    const added = await join(second.email, 'owner');
    // Two owners demoting each other at once: the business row serialises them, one stays owner.
    const secondHeaders = await tokenFor(second.id);
    const [a, b] = await Promise.all([
      rest(server, 'PATCH', `${base()}/${added.id}`, { tenant: owner, body: { role: 'staff' } }),
      rest(server, 'PATCH', `${base()}/${mine[0].id}`, { headers: secondHeaders, body: { role: 'staff' } }),
    ]);
    // The loser finds either the last owner (409) or that it is no longer an owner itself (403).
    expect([a.status, b.status].filter((s) => s === 200)).toHaveLength(1);
    expect([403, 409]).toContain([a.status, b.status].find((s) => s !== 200));
    const owners = await server.orm.em
      .fork()
      .getConnection()
      .execute(`select count(*)::int as n from membership where business_id = ? and role = 'owner'`, [owner.businessId]);
    expect(owners[0].n).toBe(1);
    // Put things back: the original owner is owner again, the second one leaves.
    if (a.status !== 200) await rest(server, 'PATCH', `${base()}/${mine[0].id}`, { headers: secondHeaders, body: { role: 'owner' } });
    expect((await rest(server, 'DELETE', `${base()}/${added.id}`, { tenant: owner })).status).toBe(204);
  });
});

describe('roles', () => {
  async function memberWithRole(role: MembershipRole) {
    const person = await newUser(`A ${role}`);
    const created = await join(person.email, role);
    return { ...person, member: created.id, headers: await tokenFor(person.id) };
  }

  it('only owners change members: a manager or staff token carrying members:write gets a 403 that says why', async () => {
    for (const role of ['manager', 'staff'] as const) {
      const m = await memberWithRole(role);
      const answer = await rest(server, 'POST', base(), { headers: m.headers, body: { email: owner.email, role: 'staff' } });
      expectError(answer, 403, 'forbidden');
      expect(answer.body.error.message).toMatch(new RegExp(`only owners .*${role}|${role}.*only owners|Only an owner`, 'i'));
      const gql = await client(server, m.headers).error('mutation($b: ID!, $id: ID!) { deleteMember(business: $b, id: $id) }', {
        b: owner.businessId,
        id: m.member,
      });
      expect(gql.code).toBe('FORBIDDEN');
      expect(gql.message).toMatch(/owner/i);
    }
  });

  it('a token acts with its scopes narrowed to the role: staff read surveys, not webhooks or members', async () => {
    const staff = await memberWithRole('staff');
    expect((await rest(server, 'GET', `/v2/businesses/${owner.businessId}/surveys`, { headers: staff.headers })).status).toBe(200);
    expectError(await rest(server, 'GET', `/v2/businesses/${owner.businessId}/webhooks`, { headers: staff.headers }), 403, 'forbidden');
    expectError(await rest(server, 'GET', base(), { headers: staff.headers }), 403, 'forbidden');
    expectError(await rest(server, 'POST', `/v2/businesses/${owner.businessId}/metrics`, { headers: staff.headers, body: { name: 'x' } }), 403, 'forbidden');
    const manager = await memberWithRole('manager');
    expect((await rest(server, 'GET', base(), { headers: manager.headers })).status).toBe(200);
    expect((await rest(server, 'GET', `/v2/businesses/${owner.businessId}/webhooks`, { headers: manager.headers })).status).toBe(200);
  });

  it("a demoted member loses the old role's scopes on the next request, without a new token", async () => {
    const m = await memberWithRole('manager');
    expect((await rest(server, 'GET', `/v2/businesses/${owner.businessId}/webhooks`, { headers: m.headers })).status).toBe(200);
    expect((await rest(server, 'PATCH', `${base()}/${m.member}`, { tenant: owner, body: { role: 'staff' } })).status).toBe(200);
    // This process forgets the member's cached checks at the change (the others re-read within REVOCATION_CACHE_MS).
    expectError(await rest(server, 'GET', `/v2/businesses/${owner.businessId}/webhooks`, { headers: m.headers }), 403, 'forbidden');
  });

  it('removing a member revokes their tokens for that business, refresh tokens included', async () => {
    const m = await memberWithRole('manager');
    expect((await rest(server, 'GET', `/v2/businesses/${owner.businessId}/surveys`, { headers: m.headers })).status).toBe(200);
    expect((await rest(server, 'DELETE', `${base()}/${m.member}`, { tenant: owner })).status).toBe(204);
    const after = await rest(server, 'GET', `/v2/businesses/${owner.businessId}/surveys`, { headers: m.headers });
    expectError(after, 401, 'unauthorized');
    const rows = await server.orm.em.fork().find(OAuthToken, { user: m.id, business: owner.businessId });
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.revokedAt)).toBe(true);
  });

  it('scopesForRole: owner everything, manager all but members:write, staff reads without credentials, webhooks, members, events', () => {
    expect(scopesForRole('owner')).toEqual([...SCOPES]);
    expect(scopesForRole('manager')).toEqual(SCOPES.filter((s) => s !== 'members:write'));
    expect(scopesForRole('staff')).toEqual([
      'surveys:read',
      'submissions:read',
      'metrics:read',
      'orders:read',
      'locations:read',
      'analytics:read',
      'flows:read',
      'alerts:read',
      'cases:read',
      'business:read',
    ]);
  });
});

describe('members list cost', () => {
  it('a page of members costs the same statements whatever its size: the memberships, then their users', async () => {
    for (let i = 0; i < 6; i++) await join((await newUser(`Many ${i}`)).email, 'staff');
    const counter = countStatements(server.orm);
    try {
      const sizes: number[] = [];
      for (const pageSize of [1, 7]) {
        await rest(server, 'GET', `${base()}?pageSize=1`, { tenant: owner }); // warm up (signing keys, the token's cache)
        counter.reset();
        const page = await rest(server, 'GET', `${base()}?pageSize=${pageSize}`, { tenant: owner });
        expect(page.body.data).toHaveLength(pageSize);
        sizes.push(counter.statements.length);
      }
      expect(sizes).toEqual([2, 2]);
    } finally {
      counter.restore();
    }
  });
});

describe('members over GraphQL', () => {
  it('lists, invites, updates and deletes with the same rules; createMember is retired and adds nobody', async () => {
    const gql = client(server, owner.headers);
    const person = await newUser('Gee Kew');
    const retired = await gql.error(`mutation($b: ID!) { createMember(business: $b, input: {email: "${person.email}", role: staff}) { ${M} } }`, {
      b: owner.businessId,
    });
    expect(retired.code).toBe('BAD_USER_INPUT');
    expect(retired.message).toMatch(/addMember/);
    const invited = (
      await gql.data(
        `mutation($b: ID!) { addMember(business: $b, input: {email: "${person.email}", role: staff}) { __typename ... on Invitation { email role } } }`,
        { b: owner.businessId },
      )
    ).addMember;
    expect(invited).toEqual({ __typename: 'Invitation', email: person.email, role: 'staff' });
    await join(person.email, 'staff');
    const created = (
      await gql.data(`query($b: ID!) { members(business: $b, where: {role: {eq: "staff"}}) { data { ${M} } } }`, { b: owner.businessId })
    ).members.data.find((m: { user: string }) => m.user === person.id);
    expect(created).toMatchObject({
      object: 'member',
      user: person.id,
      email: person.email,
      name: 'Gee Kew',
      role: 'staff',
      business: { id: owner.businessId },
    });
    const listed = (
      await gql.data(`query($b: ID!) { members(business: $b, where: {role: {eq: "staff"}}) { total data { id email } } }`, { b: owner.businessId })
    ).members;
    expect(listed.data.map((m: { id: string }) => m.id)).toContain(created.id);
    const updated = (
      await gql.data(`mutation($b: ID!, $id: ID!) { updateMember(business: $b, id: $id, input: {role: manager}) { id role } }`, {
        b: owner.businessId,
        id: created.id,
      })
    ).updateMember;
    expect(updated).toEqual({ id: created.id, role: 'manager' });
    expect((await gql.data(`mutation($b: ID!, $id: ID!) { deleteMember(business: $b, id: $id) }`, { b: owner.businessId, id: created.id })).deleteMember).toBe(
      created.id,
    );
  });
});
