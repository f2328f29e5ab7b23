import { useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant } from '../helpers/auth.js';
import { minimal, postWebhook, rows } from './ingest-helpers.js';

let server: TestServer;
useTestServer((s) => (server = s));

const CONNECT = 'mutation($b: ID!) { connectCustomIntegration(business: $b) { object business connectedAt rotatedAt webhookPath secret rotated } }';
const DISCONNECT = 'mutation($b: ID!) { disconnectCustomIntegration(business: $b) }';
const QUERY = 'query($b: ID!) { customIntegration(business: $b) { object business connectedAt rotatedAt webhookPath } }';

it('connect returns the secret once; connecting again rotates it and the old secret stops at once; disconnect refuses all', async () => {
  const tenant = await createTenant(server);
  const b = tenant.businessId;
  expect((await server.graphql(QUERY, { b }, tenant.headers)).body.data.customIntegration).toBeNull();

  const first = (await server.graphql(CONNECT, { b }, tenant.headers)).body.data.connectCustomIntegration;
  expect(first).toEqual({
    object: 'custom_integration',
    business: b,
    connectedAt: expect.any(Number),
    rotatedAt: null,
    webhookPath: `/webhooks/custom/${b}`,
    secret: expect.stringMatching(/^cisec_/),
    rotated: false,
  });
  expect((await postWebhook(server, b, minimal(), { secret: first.secret })).status).toBe(200);
  const [stored] = await rows(server, 'select secret_hash from custom_integration where business_id = ?', [b]);
  expect(stored.secret_hash).not.toContain(first.secret);

  const second = (await server.graphql(CONNECT, { b }, tenant.headers)).body.data.connectCustomIntegration;
  expect(second.rotated).toBe(true);
  expect(second.secret).not.toBe(first.secret);
  expect((await postWebhook(server, b, minimal(), { secret: first.secret })).status).toBe(401);
  expect((await postWebhook(server, b, minimal(), { secret: second.secret })).status).toBe(200);

  const read = (await server.graphql(QUERY, { b }, tenant.headers)).body;
  expect(read.data.customIntegration).toEqual({
    object: 'custom_integration',
    business: b,
    connectedAt: first.connectedAt,
    rotatedAt: expect.any(Number),
    webhookPath: `/webhooks/custom/${b}`,
  });
  expect(JSON.stringify(read)).not.toContain(second.secret);

  expect((await server.graphql(DISCONNECT, { b }, tenant.headers)).body.data.disconnectCustomIntegration).toBe(true);
  expect((await server.graphql(DISCONNECT, { b }, tenant.headers)).body.data.disconnectCustomIntegration).toBe(false);
  expect((await postWebhook(server, b, minimal(), { secret: second.secret })).status).toBe(401);
  expect((await server.graphql(QUERY, { b }, tenant.headers)).body.data.customIntegration).toBeNull();
});

it('needs orders:write to connect or disconnect, orders:read to read, and a token of that business', async () => {
  const reader = await createTenant(server, { scopes: ['orders:read'] });
  const b = reader.businessId;
  for (const q of [CONNECT, DISCONNECT]) {
    const res = await server.graphql(q, { b }, reader.headers);
    expect(res.body.errors[0].extensions.code).toBe('FORBIDDEN');
  }
  expect((await server.graphql(QUERY, { b }, reader.headers)).body.data.customIntegration).toBeNull();
  const writer = await createTenant(server, { scopes: ['orders:write'] });
  expect((await server.graphql(QUERY, { b: writer.businessId }, writer.headers)).body.errors[0].extensions.code).toBe('FORBIDDEN');
  const other = await createTenant(server);
  expect((await server.graphql(CONNECT, { b }, other.headers)).body.errors[0].extensions.code).toBe('FORBIDDEN');
  expect((await server.graphql(CONNECT, { b })).body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  expect(await rows(server, 'select id from custom_integration where business_id = ?', [b])).toEqual([]);
});
