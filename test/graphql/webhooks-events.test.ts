import type { TestServer } from '../helpers/server.js';
import { createTenant } from '../helpers/auth.js';
import { client, expectOthersNotFound, useTwoTenants, type Client } from '../helpers/graphql.js';

let server: TestServer, a: Client, b: Client, busA: string, busB: string;

useTwoTenants((t) => ({ server, a, b, busA, busB } = t));

const W = 'id object url events description enabled secret createdAt updatedAt business { id }';

describe('webhooks', () => {
  let hook: any;

  it('shows the signing secret at creation only', async () => {
    hook = (
      await a.data(
        `mutation($b: ID!) { createWebhook(business: $b, input: {url: "https://example.com/hook", events: ["order.created", "survey.updated"], description: "orders"}) { ${W} } }`,
        { b: busA },
      )
    ).createWebhook;
    expect(hook).toMatchObject({
      object: 'webhook',
      url: 'https://example.com/hook',
      events: ['order.created', 'survey.updated'],
      enabled: true,
      business: { id: busA },
    });
    // Standard Webhooks secret (issue 11): whsec_ and the padded standard base64 of 32 random bytes.
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const read = await a.data(`query($b: ID!, $id: ID!) { webhook(business: $b, id: $id) { secret url } }`, { b: busA, id: hook.id });
    expect(read.webhook).toEqual({ secret: null, url: hook.url });
    const listed = await a.data(`query($b: ID!) { webhooks(business: $b) { data { id secret } total } }`, { b: busA });
    expect(listed.webhooks).toEqual({ data: [{ id: hook.id, secret: null }], total: 1 });
    const ev = await a.data(`query($b: ID!) { events(business: $b, where: {type: {eq: "webhook.created"}}) { data { data } } }`, { b: busA });
    expect(JSON.stringify(ev)).not.toContain(hook.secret);
    expect(ev.events.data[0].data.object.secret).toBeNull();
  });

  it('validates url and event types', async () => {
    const err = await a.error(`mutation($b: ID!) { createWebhook(business: $b, input: {url: "ftp://x", events: ["nope", "*"]}) { id } }`, { b: busA });
    expect(err.code).toBe('BAD_USER_INPUT');
    expect(err.details!.map((d) => d.field)).toEqual(['url', 'events', 'events']);
    const empty = await a.error(`mutation($b: ID!) { createWebhook(business: $b, input: {url: "https://x.io", events: []}) { id } }`, { b: busA });
    expect(empty.details![0].field).toBe('events');
  });

  it('updates, filters, deletes', async () => {
    const up = await a.data(`mutation($b: ID!, $id: ID!) { updateWebhook(business: $b, id: $id, input: {enabled: false, events: ["*"]}) { ${W} } }`, {
      b: busA,
      id: hook.id,
    });
    expect(up.updateWebhook).toMatchObject({ enabled: false, events: ['*'], secret: null, url: hook.url });
    const second = (await a.data(`mutation($b: ID!) { createWebhook(business: $b, input: {url: "https://other.io/h", events: ["*"]}) { id } }`, { b: busA }))
      .createWebhook;
    const f = await a.data(`query($b: ID!) { webhooks(business: $b, where: {enabled: {eq: false}}) { data { id } } }`, { b: busA });
    expect(f.webhooks.data).toEqual([{ id: hook.id }]);
    const byUrl = await a.data(
      `query($b: ID!) { webhooks(business: $b, where: {url: {contains: "other"}}, orderBy: [{field: url, order: desc}]) { data { id } } }`,
      { b: busA },
    );
    expect(byUrl.webhooks.data).toEqual([{ id: second.id }]);
    expect((await a.data(`mutation($b: ID!, $id: ID!) { deleteWebhook(business: $b, id: $id) }`, { b: busA, id: second.id })).deleteWebhook).toBe(second.id);
    expect((await a.error(`query($b: ID!, $id: ID!) { webhook(business: $b, id: $id) { id } }`, { b: busA, id: second.id })).code).toBe('NOT_FOUND');
  });

  it("treats another business's webhook as NOT_FOUND", async () => {
    await expectOthersNotFound(b, busB, hook.id, 'webhook', '{enabled: true}');
  });
});

describe('events', () => {
  it('lists the changes of the business, newest first, filtered by type and time; get by id', async () => {
    await a.data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "E"}) { id } }`, { b: busA });
    const all = await a.data(`query($b: ID!) { events(business: $b, pageSize: 100) { data { id object type createdAt business { id } data } total } }`, {
      b: busA,
    });
    const types = all.events.data.map((e: any) => e.type);
    expect(types[0]).toBe('survey.created');
    expect(types).toEqual(expect.arrayContaining(['webhook.created', 'webhook.updated', 'webhook.deleted']));
    expect(all.events.data[0]).toMatchObject({ object: 'event', business: { id: busA }, data: { object: { object: 'survey', name: 'E' } } });
    const created = all.events.data.map((e: any) => e.createdAt);
    expect(created).toEqual([...created].sort((x: number, y: number) => y - x));
    const hooks = await a.data(`query($b: ID!) { events(business: $b, where: {type: {in: ["webhook.created", "webhook.deleted"]}}) { total } }`, { b: busA });
    expect(hooks.events.total).toBe(3);
    const since = await a.data(`query($b: ID!, $t: Timestamp) { events(business: $b, where: {createdAt: {gte: $t}, type: {contains: "survey"}}) { total } }`, {
      b: busA,
      t: all.events.data[0].createdAt,
    });
    expect(since.events.total).toBe(1);
    const one = await a.data(`query($b: ID!, $id: ID!) { event(business: $b, id: $id) { id type } }`, { b: busA, id: all.events.data[0].id });
    expect(one.event).toEqual({ id: all.events.data[0].id, type: 'survey.created' });
    expect((await b.error(`query($b: ID!, $id: ID!) { event(business: $b, id: $id) { id } }`, { b: busB, id: all.events.data[0].id })).code).toBe('NOT_FOUND');
    const theirs = (await b.data(`query($b: ID!) { events(business: $b, pageSize: 100) { data { id } } }`, { b: busB })).events.data;
    const ours = new Set(all.events.data.map((e: any) => e.id));
    expect(theirs.filter((e: any) => ours.has(e.id))).toEqual([]);
  });

  it('needs the events:read scope', async () => {
    const t = await createTenant(server, { scopes: ['surveys:read'] });
    const c = client(server, t.headers);
    expect((await c.error(`query($b: ID!) { events(business: $b) { total } }`, { b: t.businessId })).code).toBe('FORBIDDEN');
  });
});
