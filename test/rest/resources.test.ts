import { createTenant, useTenantServer, type Tenant } from '../helpers/auth.js';
import { ROUTES } from '../../rest-adapter/route.table.js';
import { expectError, qs, rest } from './rest.helpers.js';

let other: Tenant;
let b: string;
const fx = useTenantServer({}, async ({ server, tenant }) => {
  other = await createTenant(server, { businessName: 'Other' });
  b = `/v2/businesses/${tenant.businessId}`;
});

const UNKNOWN: Record<string, string> = {
  orders: 'ord_01ZZZZZZZZZZZZZZZZZZZZZZZZ',
  webhooks: 'wh_01ZZZZZZZZZZZZZZZZZZZZZZZZ',
  events: 'evt_01ZZZZZZZZZZZZZZZZZZZZZZZZ',
  credentials: 'cred_01ZZZZZZZZZZZZZZZZZZZZZZZZ',
  locations: 'loc_01ZZZZZZZZZZZZZZZZZZZZZZZZ',
  'menu-items': 'mi_01ZZZZZZZZZZZZZZZZZZZZZZZZ',
};

describe('orders', () => {
  let orderId: string;
  it('POST 201, GET list and one, items as ids or expanded to the menu item, PATCH 200', async () => {
    const created = await rest(fx.server, 'POST', `${b}/orders`, {
      tenant: fx.tenant,
      body: {
        externalOrderId: 'W-1',
        total: 'Rs. 1,250.00',
        currency: 'PKR',
        channel: 'call in',
        items: [{ name: 'Tea', quantity: 2, unitPrice: '100' }, { name: 'Cake' }],
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      object: 'order',
      data: expect.objectContaining({ object: 'order', total: 1250, status: 'PENDING', source: 'api', channel: 'CALL-IN', business: fx.tenant.businessId }),
    });
    expect(created.body.data.items).toEqual([expect.stringMatching(/^oli_/), expect.stringMatching(/^oli_/)]);
    orderId = created.body.data.id;
    await rest(fx.server, 'POST', `${b}/orders`, { tenant: fx.tenant, body: { externalOrderId: 'W-2', total: 10, currency: 'USD', status: 'ACCEPTED' } });

    const list = await rest(fx.server, 'GET', `${b}/orders?expand=items.menuItem`, { tenant: fx.tenant });
    expect(list.body).toEqual(expect.objectContaining({ object: 'list', total: 2, hasMore: false }));
    const first = list.body.data.find((o: any) => o.id === orderId);
    expect(first.items.map((i: any) => [i.name, i.menuItem.name, i.menuItem.object])).toEqual([
      ['Tea', 'Tea', 'menuitem'],
      ['Cake', 'Cake', 'menuitem'],
    ]);
    const one = await rest(fx.server, 'GET', `${b}/orders/${orderId}?expand=items`, { tenant: fx.tenant });
    expect(one.body.data.items[0]).toEqual(
      expect.objectContaining({ object: 'orderitem', name: 'Tea', quantity: 2, unitPrice: 100, menuItem: expect.stringMatching(/^mi_/) }),
    );

    const cases: [unknown, string[]][] = [
      [{ field: 'status', type: 'eq', value: 'ACCEPTED' }, ['W-2']],
      [{ field: 'total', type: 'gt', value: 100 }, ['W-1']],
      [{ field: 'currency', type: 'in', value: ['USD', 'EUR'] }, ['W-2']],
      [{ field: 'externalOrderId', type: 'contains', value: 'w-' }, ['W-1', 'W-2']],
    ];
    for (const [filter, want] of cases) {
      const res = await rest(fx.server, 'GET', `${b}/orders${qs({ filters: filter, sorts: { field: 'externalOrderId', order: 'asc' } })}`, {
        tenant: fx.tenant,
      });
      expect({ filter, ids: res.body.data.map((o: any) => o.externalOrderId) }).toEqual({ filter, ids: want });
    }
    const patched = await rest(fx.server, 'PATCH', `${b}/orders/${orderId}`, { tenant: fx.tenant, body: { status: 'ACCEPTED' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data.status).toBe('ACCEPTED');
    const bad = await rest(fx.server, 'POST', `${b}/orders`, { tenant: fx.tenant, body: { total: 'free', items: 'none' } });
    expectError(bad, 400, 'validation_failed');
    expect(bad.body.error.details.map((d: any) => d.field)).toEqual(expect.arrayContaining(['externalOrderId', 'currency', 'items']));
    expectError(
      await rest(fx.server, 'POST', `${b}/orders`, { tenant: fx.tenant, body: { externalOrderId: 'W-1', total: 1, currency: 'PKR' } }),
      409,
      'conflict',
    );
  });

  it('405 with Allow for DELETE (orders have no delete)', async () => {
    const res = await rest(fx.server, 'DELETE', `${b}/orders/${orderId}`, { tenant: fx.tenant });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, PATCH, HEAD');
  });

  it('menu items: list and get, from order lines', async () => {
    const list = await rest(fx.server, 'GET', `${b}/menu-items${qs({ sorts: { field: 'name', order: 'asc' } })}`, { tenant: fx.tenant });
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: any) => m.name)).toEqual(['Cake', 'Tea']);
    const one = await rest(fx.server, 'GET', `${b}/menu-items/${list.body.data[0].id}`, { tenant: fx.tenant });
    expect(one.body).toEqual({ object: 'menuitem', data: expect.objectContaining({ name: 'Cake', business: fx.tenant.businessId }) });
    expectError(await rest(fx.server, 'POST', `${b}/menu-items`, { tenant: fx.tenant, body: { name: 'x' } }), 405);
  });
});

describe('webhooks and events', () => {
  it('webhook CRUD: the secret only at creation; events written by changes, read-only', async () => {
    const created = await rest(fx.server, 'POST', `${b}/webhooks`, { tenant: fx.tenant, body: { url: 'https://example.com/hook', events: ['*'] } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      object: 'webhook',
      data: expect.objectContaining({ url: 'https://example.com/hook', enabled: true, secret: expect.any(String) }),
    });
    const id = created.body.data.id;
    const one = await rest(fx.server, 'GET', `${b}/webhooks/${id}`, { tenant: fx.tenant });
    expect(one.body.data.secret).toBeNull();
    const list = await rest(fx.server, 'GET', `${b}/webhooks${qs({ filters: { field: 'enabled', type: 'eq', value: true } })}`, { tenant: fx.tenant });
    expect(list.body.data.map((w: any) => w.id)).toEqual([id]);
    const patched = await rest(fx.server, 'PATCH', `${b}/webhooks/${id}`, { tenant: fx.tenant, body: { enabled: false } });
    expect(patched.body.data.enabled).toBe(false);
    expectError(await rest(fx.server, 'POST', `${b}/webhooks`, { tenant: fx.tenant, body: { url: 5, events: 'all' } }), 400, 'validation_failed');
    expect((await rest(fx.server, 'DELETE', `${b}/webhooks/${id}`, { tenant: fx.tenant })).status).toBe(204);

    const events = await rest(fx.server, 'GET', `${b}/events${qs({ filters: { field: 'type', type: 'eq', value: 'webhook.created' } })}`, {
      tenant: fx.tenant,
    });
    expect(events.status).toBe(200);
    expect(events.body.data).toHaveLength(1);
    expect(events.body.data[0]).toEqual(expect.objectContaining({ object: 'event', type: 'webhook.created', business: fx.tenant.businessId }));
    const event = await rest(fx.server, 'GET', `${b}/events/${events.body.data[0].id}?expand=business`, { tenant: fx.tenant });
    expect(event.body).toEqual({
      object: 'event',
      data: expect.objectContaining({ business: expect.objectContaining({ id: fx.tenant.businessId, object: 'business' }) }),
    });
    for (const method of ['POST', 'PATCH', 'DELETE']) {
      const path = method === 'POST' ? `${b}/events` : `${b}/events/${events.body.data[0].id}`;
      const res = await rest(fx.server, method, path, { tenant: fx.tenant, body: {} });
      expectError(res, 405);
      expect(res.headers.get('allow')).toBe('GET, HEAD');
    }
  });
});

describe('credentials', () => {
  it('POST answers the secret once; GET never; DELETE 204; PATCH 405', async () => {
    const created = await rest(fx.server, 'POST', `${b}/credentials`, {
      tenant: fx.tenant,
      body: { name: 'POS', validRedirectUris: ['https://pos.example.com/cb'] },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      object: 'credential',
      data: expect.objectContaining({
        object: 'credential',
        clientId: expect.any(String),
        clientSecret: expect.any(String),
        createdBy: fx.tenant.userId,
        requirePkce: false,
      }),
    });
    const id = created.body.data.id;
    // Held to OAuth 2.1 by choice, at creation (the REST API has no update for credentials).
    const strict = await rest(fx.server, 'POST', `${b}/credentials`, {
      tenant: fx.tenant,
      body: { name: 'Strict', validRedirectUris: ['https://pos.example.com/cb'], requirePkce: true },
    });
    expect(strict.status).toBe(201);
    expect((await rest(fx.server, 'GET', `${b}/credentials/${strict.body.data.id}`, { tenant: fx.tenant })).body.data.requirePkce).toBe(true);
    expectError(
      await rest(fx.server, 'POST', `${b}/credentials`, {
        tenant: fx.tenant,
        body: { name: 'x', validRedirectUris: ['https://a.example.com'], requirePkce: 'yes' },
      }),
      400,
    );
    const one = await rest(fx.server, 'GET', `${b}/credentials/${id}`, { tenant: fx.tenant });
    expect(one.body.data).not.toHaveProperty('clientSecret');
    const list = await rest(fx.server, 'GET', `${b}/credentials${qs({ filters: { field: 'name', type: 'eq', value: 'POS' } })}`, { tenant: fx.tenant });
    expect(list.body.data.map((c: any) => c.id)).toEqual([id]);
    const patch = await rest(fx.server, 'PATCH', `${b}/credentials/${id}`, { tenant: fx.tenant, body: { name: 'x' } });
    expectError(patch, 405);
    expect(patch.headers.get('allow')).toBe('GET, DELETE, HEAD');
    expectError(
      await rest(fx.server, 'POST', `${b}/credentials`, { tenant: fx.tenant, body: { name: 'x', validRedirectUris: 'https://a' } }),
      400,
      'validation_failed',
    );
    expect((await rest(fx.server, 'DELETE', `${b}/credentials/${id}`, { tenant: fx.tenant })).status).toBe(204);
    expectError(await rest(fx.server, 'GET', `${b}/credentials/${id}`, { tenant: fx.tenant }), 404);
  });
});

describe('locations, v2 and the deprecated v1 list', () => {
  it('CRUD on v2; v1 lists with the same conventions, Deprecation and Sunset headers', async () => {
    const created = await rest(fx.server, 'POST', `${b}/locations`, { tenant: fx.tenant, body: { name: 'Gulberg', metadata: { branchCode: 'LHR-01' } } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ object: 'location', data: expect.objectContaining({ name: 'Gulberg', metadata: { branchCode: 'LHR-01' } }) });
    const id = created.body.data.id;
    await rest(fx.server, 'POST', `${b}/locations`, { tenant: fx.tenant, body: { name: 'DHA', metadata: { branchCode: 'LHR-02' } } });
    const patched = await rest(fx.server, 'PATCH', `${b}/locations/${id}`, { tenant: fx.tenant, body: { name: 'Gulberg III' } });
    expect(patched.body.data.name).toBe('Gulberg III');

    const v1 = await rest(
      fx.server,
      'GET',
      `/v1/businesses/${fx.tenant.businessId}/locations${qs({ pageSize: '1', sorts: { field: 'name', order: 'asc' } })}`,
      { tenant: fx.tenant },
    );
    expect(v1.status).toBe(200);
    expect(v1.body).toEqual({
      object: 'list',
      data: [expect.objectContaining({ name: 'DHA' })],
      page: 0,
      pageSize: 1,
      total: 2,
      hasMore: true,
      links: { next: expect.stringMatching(/^\/v1\/businesses\/bus_\w+\/locations\?.*page=1/), previous: null },
    });
    expect(v1.headers.get('deprecation')).toMatch(/^@\d+$/);
    expect(new Date(v1.headers.get('sunset')!).getTime()).toBeGreaterThan(Date.now());
    expect(v1.headers.get('link')).toBe(`</v2/businesses/${fx.tenant.businessId}/locations>; rel="successor-version"`);
    const v2 = await rest(fx.server, 'GET', `${b}/locations`, { tenant: fx.tenant });
    const head = await fetch(`${fx.server.url}${b}/locations`, { method: 'HEAD', headers: fx.tenant.headers });
    expect(head.status).toBe(200); // Allow lists HEAD beside GET
    expect(v2.headers.get('deprecation')).toBeNull();
    expectError(await rest(fx.server, 'GET', `/v1/businesses/${fx.tenant.businessId}/locations?pageSize=500`, { tenant: fx.tenant }), 400);
    expectError(await rest(fx.server, 'POST', `/v1/businesses/${fx.tenant.businessId}/locations`, { tenant: fx.tenant, body: { name: 'x' } }), 405);
    expect((await rest(fx.server, 'DELETE', `${b}/locations/${id}`, { tenant: fx.tenant })).status).toBe(204);
  });
});

describe('custom integration', () => {
  it('GET 404 until connected; PUT connects (secret once) and rotates; DELETE 204 then 404', async () => {
    const path = `${b}/integrations/custom`;
    expectError(await rest(fx.server, 'GET', path, { tenant: fx.tenant }), 404, 'not_found');
    const connected = await rest(fx.server, 'PUT', path, { tenant: fx.tenant });
    expect(connected.status).toBe(200);
    expect(connected.body).toEqual({
      object: 'custom_integration',
      data: expect.objectContaining({
        secret: expect.any(String),
        rotated: false,
        business: fx.tenant.businessId,
        webhookPath: `/webhooks/custom/${fx.tenant.businessId}`,
      }),
    });
    const read = await rest(fx.server, 'GET', path, { tenant: fx.tenant });
    expect(read.body.data).not.toHaveProperty('secret');
    const rotated = await rest(fx.server, 'PUT', path, { tenant: fx.tenant });
    expect(rotated.body.data.rotated).toBe(true);
    expect(rotated.body.data.secret).not.toBe(connected.body.data.secret);
    const order = { externalOrderId: 'C-1', total: 5, currency: 'PKR', metadata: { table: '4' } };
    const post = (secret: string) =>
      fetch(`${fx.server.url}/webhooks/custom/${fx.tenant.businessId}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
        body: JSON.stringify(order),
      });
    expect((await post(connected.body.data.secret)).status).toBe(401);
    expect((await post(rotated.body.data.secret)).status).toBe(200);
    expect((await rest(fx.server, 'DELETE', path, { tenant: fx.tenant })).status).toBe(204);
    expect((await post(rotated.body.data.secret)).status).toBe(401);
    expectError(await rest(fx.server, 'DELETE', path, { tenant: fx.tenant }), 404);
    const post405 = await rest(fx.server, 'POST', path, { tenant: fx.tenant, body: {} });
    expect(post405.status).toBe(405);
    expect(post405.headers.get('allow')).toBe('GET, PUT, DELETE, HEAD');
  });
});

describe('every list and item route: 401, 403 for another business, 404 for unknown ids', () => {
  const collections = ['orders', 'webhooks', 'events', 'credentials', 'locations', 'menu-items'];
  it.each(collections)('%s', async (name) => {
    expectError(await rest(fx.server, 'GET', `${b}/${name}`), 401, 'unauthorized');
    expectError(await rest(fx.server, 'GET', `${b}/${name}`, { headers: { authorization: 'Bearer x.y.z' } }), 401, 'unauthorized');
    expectError(await rest(fx.server, 'GET', `/v2/businesses/${other.businessId}/${name}`, { tenant: fx.tenant }), 403, 'forbidden');
    expectError(await rest(fx.server, 'GET', `${b}/${name}/${UNKNOWN[name]}`, { tenant: fx.tenant }), 404, 'not_found');
    expectError(await rest(fx.server, 'GET', `${b}/${name}/malformed`, { tenant: fx.tenant }), 404, 'not_found');
    const list = await rest(fx.server, 'GET', `${b}/${name}?page=50`, { tenant: fx.tenant });
    expect(list.body).toEqual(expect.objectContaining({ object: 'list', data: [], page: 50, hasMore: false }));
  });

  it("another business's object by id inside my business: 404", async () => {
    const theirs = await rest(fx.server, 'POST', `/v2/businesses/${other.businessId}/locations`, { tenant: other, body: { name: 'Theirs', metadata: {} } });
    expectError(await rest(fx.server, 'GET', `${b}/locations/${theirs.body.data.id}`, { tenant: fx.tenant }), 404, 'not_found');
  });

  it('a missing scope is a 403 on every resource', async () => {
    const none = await createTenant(fx.server, { scopes: ['analytics:read'] });
    for (const route of ROUTES.filter((r) => r.kind === 'list' && r.path.startsWith('/v2'))) {
      const path = route.path.replace('{business}', none.businessId).replace('{survey}', 'sur_01ZZZZZZZZZZZZZZZZZZZZZZZZ');
      expectError(await rest(fx.server, 'GET', path, { tenant: none }), 403, 'forbidden');
    }
  });
});
