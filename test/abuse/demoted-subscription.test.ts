import { randomBytes } from 'node:crypto';
import { jest } from '@jest/globals';
import type { Scope } from '../../src/auth/scopes.js';
import { createUser } from '../../src/modules/user/user.service.js';
import { createMember } from '../../src/modules/member/member.service.js';
import { RECHECK_MS } from '../../src/graphql/subscriptions.js';
import { REVOCATION_CACHE_MS } from '../../src/modules/oauth/revocation.cache.js';
import { createTenant, issueToken, TEST_PASSWORD, type Tenant } from '../helpers/auth.js';
import { client, sleep, type Client } from '../helpers/graphql.js';
import { liveClient, type LiveClient } from '../helpers/live.js';
import { useTestServer, type TestServer } from '../helpers/server.js';

/**
 * Issue 33: an open GraphQL subscription re-reads its member's role with the token check, so a demoted member stops
 * hearing what the new role may not read (before, it kept the scopes it started with until the token expired).
 */
jest.setTimeout(60_000);

let server: TestServer;
let owner: Tenant;
let ownerApi: Client;
let survey: string;
const open: LiveClient[] = [];
useTestServer(async (s) => {
  server = s;
  owner = await createTenant(s, { businessName: 'Live Roles Cafe' });
  ownerApi = client(s, owner.headers);
  survey = (await ownerApi.data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "Live"}) { id } }`, { b: owner.businessId })).createSurvey.id;
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.dispose()));
});

const SUBSCRIPTION = `subscription($b: ID!) { eventRecorded(business: $b) { id type data } }`;
let orders = 0;
const order = async () =>
  (
    await ownerApi.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, {
      b: owner.businessId,
      i: { externalOrderId: `live-${orders++}`, total: 10, currency: 'PKR', customerEmail: 'guest@example.com' },
    })
  ).createOrder.id as string;
const submission = async () =>
  (
    await ownerApi.data(`mutation($b: ID!, $s: ID!) { createSubmission(business: $b, survey: $s, input: {answers: []}) { id } }`, {
      b: owner.businessId,
      s: survey,
    })
  ).createSubmission.id as string;

/** A manager of the owner's business, with a token carrying `scopes`. */
async function manager(scopes: readonly Scope[]) {
  const email = `manager-${randomBytes(4).toString('hex')}@example.com`;
  const user = await createUser(server.orm.em.fork(), { email, password: TEST_PASSWORD });
  const member = await createMember(server.orm.em.fork(), owner.businessId, { email, role: 'manager' });
  const issued = await issueToken(server, {
    credential: owner.credentialId,
    clientId: owner.clientId,
    business: owner.businessId,
    user: user.id,
    scopes,
    withRefreshToken: false,
  });
  return { memberId: member.id, authorization: `Bearer ${issued.accessToken}` };
}

const typesOf = (l: LiveClient, from = 0) => l.received.slice(from).map((d) => d.eventRecorded.type as string);

/** Writes until `l` hears an event of `type` after index `from` (graphql-ws acknowledges no subscription). */
async function untilHeard(l: LiveClient, type: string, write: () => Promise<unknown>, from = 0) {
  for (const started = Date.now(); !typesOf(l, from).includes(type); await sleep(100)) {
    if (Date.now() - started > 15_000) throw new Error(`no ${type} heard within 15 s: ${typesOf(l, from)}`);
    await write();
  }
}

describe('an open subscription of a member who is demoted', () => {
  it('stops hearing order events the new role may not read', async () => {
    // Orders are heard through events:read, which staff may not hold; submissions through submissions:read, which they may.
    const m = await manager(['events:read', 'submissions:read']);
    const l = liveClient(server.url, m.authorization);
    open.push(l);
    void l.listen(SUBSCRIPTION, { b: owner.businessId });
    await untilHeard(l, 'order.created', order);

    await ownerApi.data(`mutation($b: ID!, $id: ID!) { updateMember(business: $b, id: $id, input: {role: staff}) { role } }`, {
      b: owner.businessId,
      id: m.memberId,
    });
    // The connection's token check runs every RECHECK_MS; the role is re-read with it.
    await sleep(RECHECK_MS + REVOCATION_CACHE_MS + 1_000);
    const from = l.received.length;
    await order();
    // A submission after the order: events arrive in commit order, so once it is heard the order would have been too.
    await untilHeard(l, 'submission.created', submission, from);
    expect(typesOf(l, from)).not.toContain('order.created');
    expect(JSON.stringify(l.received.slice(from))).not.toContain('guest@example.com');
  });
});
