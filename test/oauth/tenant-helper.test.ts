import { useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant } from '../helpers/auth.js';

let server: TestServer;
useTestServer((s) => (server = s));

describe('createTenant and bearer tokens on /graphql', () => {
  it('mints a token that reads its own business', async () => {
    const tenant = await createTenant(server, { businessName: 'Cafe Due' });
    const { body } = await server.graphql('query($id: ID!) { business(id: $id) { id name } }', { id: tenant.businessId }, tenant.headers);
    expect(body.data).toEqual({ business: { id: tenant.businessId, name: 'Cafe Due' } });
  });

  it('refuses another business, no token and a bad token', async () => {
    const a = await createTenant(server);
    const b = await createTenant(server, { scopes: ['surveys:read'] });
    const query = 'query($id: ID!) { business(id: $id) { id } }';
    const other = await server.graphql(query, { id: a.businessId }, b.headers);
    expect(other.body.errors[0].extensions.code).toBe('FORBIDDEN');
    const none = await server.graphql(query, { id: a.businessId });
    expect(none.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const bad = await server.graphql(query, { id: a.businessId }, { authorization: `Bearer ${a.token}x` });
    expect(bad.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    expect(bad.body.errors[0].message).toMatch(/signature/);
    // A public query still answers with a bad token.
    const health = await server.graphql('{ health { status } }', {}, { authorization: 'Bearer nonsense' });
    expect(health.body.data.health.status).toBe('ok');
  });
});
