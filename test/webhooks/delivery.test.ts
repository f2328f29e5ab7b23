import http from 'node:http';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createTenant } from '../helpers/auth.js';
import { client, type Client } from '../helpers/graphql.js';
import { createHook, deliveriesOf, eventually, makeEvent, startDeliveryServer, verify, type TestServer } from './webhook-helpers.js';

let server: TestServer;
let api: Client;
let business: string;
let headers: Record<string, string>;
const receivers: Receiver[] = [];
const receiver = async (...args: Parameters<typeof startReceiver>) => {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
};

beforeAll(async () => {
  let tenant;
  ({ server, api, business, tenant } = await startDeliveryServer());
  headers = tenant.headers;
});
/** The webhook's deliveries once `check` passes on them: retried as `eventually` retries. */
const deliveriesOnce = (hook: string, check: (page: any) => void, timeoutMs?: number) =>
  eventually(async () => {
    const page = await deliveriesOf(api, business, hook);
    check(page);
    return page;
  }, timeoutMs);

afterAll(async () => {
  await server?.stop();
  await Promise.all(receivers.map((r) => r.close()));
});

describe('delivery', () => {
  it('posts the event, signed the Standard Webhooks way, within a second of its commit', async () => {
    const inbox = await receiver();
    const hook = await createHook(api, business, `${inbox.url}/hooks`, ['metric.created']);
    expect(hook.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const metric = await makeEvent(api, business, 'Speed');
    const request = await inbox.waitFor((r) => r.body.includes(metric.id), 5_000);
    const receivedAt = Date.now();

    const payload = verify(hook.secret, request) as Record<string, any>;
    expect(request.method).toBe('POST');
    expect(request.url.pathname).toBe('/hooks');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['user-agent']).toMatch(/^feedback-service-webhooks\//);
    expect(request.headers['webhook-id']).toMatch(/^whd_[0-9A-Z]{26}$/);
    expect(Math.abs(Number(request.headers['webhook-timestamp']) - receivedAt / 1000)).toBeLessThan(5);
    expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);

    // The body is the event as the events API shows it.
    const { event } = await api.data(`query($b: ID!, $id: ID!) { event(business: $b, id: $id) { id type createdAt data } }`, { b: business, id: payload.id });
    expect(payload).toEqual({ id: event.id, type: 'metric.created', timestamp: event.createdAt, business, data: event.data });
    expect(payload.data.object).toMatchObject({ id: metric.id, object: 'metric', name: 'Speed' });
    expect(receivedAt - event.createdAt).toBeLessThan(1_000);

    const log = await deliveriesOnce(hook.id, (page) => expect(page.data[0].status).toBe('succeeded'));
    expect(log.total).toBe(1);
    expect(log.data[0]).toMatchObject({
      id: request.headers['webhook-id'],
      object: 'webhookdelivery',
      eventType: 'metric.created',
      attemptCount: 1,
      nextAttemptAt: null,
      webhook: { id: hook.id },
      event: { id: event.id, type: 'metric.created' },
      attempts: [{ responseStatus: 200, error: null }],
    });
    expect(log.data[0].attempts[0].responseBody).toContain('Received');
  });

  it('fans out to every enabled webhook subscribed to the type or to *, and to no other', async () => {
    const inbox = await receiver();
    const star = await createHook(api, business, `${inbox.url}/star`);
    const typed = await createHook(api, business, `${inbox.url}/typed`, ['metric.created']);
    const other = await createHook(api, business, `${inbox.url}/other`, ['order.created']);
    const off = await createHook(api, business, `${inbox.url}/off`);
    await api.data(`mutation($b: ID!, $id: ID!) { updateWebhook(business: $b, id: $id, input: {enabled: false}) { id } }`, { b: business, id: off.id });
    // Another business's webhook never gets this business's events.
    const stranger = await createTenant(server);
    await createHook(client(server, stranger.headers), stranger.businessId, `${inbox.url}/stranger`);

    const metric = await makeEvent(api, business, 'Fan-out');
    await inbox.waitFor((r) => r.url.pathname === '/star' && r.body.includes(metric.id));
    await inbox.waitFor((r) => r.url.pathname === '/typed' && r.body.includes(metric.id));
    await new Promise((r) => setTimeout(r, 500));
    const paths = inbox.requests
      .filter((r) => r.body.includes(metric.id))
      .map((r) => r.url.pathname)
      .sort();
    expect(paths).toEqual(['/star', '/typed']);
    expect((await deliveriesOf(api, business, other.id)).total).toBe(0);
    // Events recorded while it was enabled (the other webhooks' creation) were delivered; none after.
    expect((await deliveriesOf(api, business, off.id, { eventType: { eq: 'metric.created' } })).total).toBe(0);
    for (const hook of [star, typed])
      verify(
        hook.secret,
        inbox.requests.find((r) => r.body.includes(metric.id) && r.headers['webhook-signature'] && r.url.pathname === (hook === star ? '/star' : '/typed'))!,
      );

    // A test event goes only where it is sent: the webhook subscribed to * gets none, the one tested gets it once.
    const test = (await api.data(`mutation($b: ID!, $id: ID!) { testWebhook(business: $b, id: $id) { id } }`, { b: business, id: typed.id })).testWebhook;
    await inbox.waitFor((r) => r.headers['webhook-id'] === test.id);
    const later = await makeEvent(api, business, 'After the test');
    await inbox.waitFor((r) => r.url.pathname === '/star' && r.body.includes(later.id));
    expect((await deliveriesOf(api, business, star.id, { eventType: { eq: 'webhook.test' } })).total).toBe(0);
    expect((await deliveriesOf(api, business, typed.id, { eventType: { eq: 'webhook.test' } })).total).toBe(1);
  });

  it('never has more than 4 attempts in flight to one webhook', async () => {
    // A receiver that takes its time: the worker leases ahead, but starts a 5th attempt only when one has answered.
    let open = 0;
    let most = 0;
    let answered = 0;
    const slow = http.createServer((req, res) => {
      most = Math.max(most, ++open);
      req.resume().on('end', () => setTimeout(() => (open--, answered++, res.writeHead(204).end()), 150));
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    try {
      await createHook(api, business, `http://127.0.0.1:${(slow.address() as { port: number }).port}/`, ['metric.created']);
      await Promise.all(Array.from({ length: 12 }, (_, i) => makeEvent(api, business, `Capped ${i}`)));
      await eventually(async () => expect(answered).toBe(12), 20_000);
      expect(most).toBeLessThanOrEqual(4);
      expect(most).toBeGreaterThan(1);
    } finally {
      slow.closeAllConnections();
      slow.close();
    }
  });

  it('retries a receiver that fails twice: three attempts, one webhook-id, every signature valid', async () => {
    let calls = 0;
    const inbox = await receiver(() => (++calls <= 2 ? { status: 500, body: 'try later' } : { status: 204 }));
    const hook = await createHook(api, business, inbox.url, ['metric.created']);
    const metric = await makeEvent(api, business, 'Flaky');
    await eventually(async () => expect(inbox.requests.filter((r) => r.body.includes(metric.id))).toHaveLength(3), 10_000);
    const requests = inbox.requests.filter((r) => r.body.includes(metric.id));
    expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const r of requests) verify(hook.secret, r);
    const [delivery] = (await deliveriesOnce(hook.id, (page) => expect(page.data[0].status).toBe('succeeded'))).data;
    expect(delivery.attemptCount).toBe(3);
    expect(delivery.attempts.map((a: any) => [a.responseStatus, a.error, a.responseBody])).toEqual([
      [500, 'http_status', 'try later'],
      [500, 'http_status', 'try later'],
      [204, null, ''],
    ]);
    // The retry schedule (300ms, 600ms, ±20%) spaced the attempts.
    expect(delivery.attempts[1].at - delivery.attempts[0].at).toBeGreaterThanOrEqual(200);
    expect(delivery.attempts[2].at - delivery.attempts[1].at).toBeGreaterThanOrEqual(450);
  });

  it('gives up after the schedule: exhausted, nothing more scheduled', async () => {
    const inbox = await receiver(() => ({ status: 503 }));
    const hook = await createHook(api, business, inbox.url, ['metric.created']);
    await makeEvent(api, business, 'Down');
    const [delivery] = (await deliveriesOnce(hook.id, (page) => expect(page.data[0].status).toBe('exhausted'), 15_000)).data;
    expect(delivery.attemptCount).toBe(4); // the first attempt and the schedule's three retries
    expect(delivery.nextAttemptAt).toBeNull();
    expect(await deliveriesOf(api, business, hook.id, { status: { eq: 'exhausted' } })).toMatchObject({ total: 1 });
    expect(await deliveriesOf(api, business, hook.id, { status: { eq: 'succeeded' } })).toMatchObject({ total: 0 });
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    const target = await receiver();
    const inbox = await receiver(() => ({ status: 307, headers: { location: `${target.url}/elsewhere` } }));
    const hook = await createHook(api, business, inbox.url, ['metric.created']);
    await makeEvent(api, business, 'Moved');
    const [delivery] = (await deliveriesOnce(hook.id, (page) => expect(page.data[0].attempts.length).toBeGreaterThanOrEqual(1))).data;
    expect(delivery.attempts[0]).toMatchObject({ responseStatus: 307, error: 'http_status' });
    expect(target.requests).toHaveLength(0);
  });

  it('410 Gone disables the webhook at once and records webhook.disabled', async () => {
    const inbox = await receiver(() => ({ status: 410 }));
    const hook = await createHook(api, business, inbox.url, ['metric.created']);
    await makeEvent(api, business, 'Gone');
    await eventually(async () => {
      const { webhook } = await api.data(`query($b: ID!, $id: ID!) { webhook(business: $b, id: $id) { enabled } }`, { b: business, id: hook.id });
      expect(webhook.enabled).toBe(false);
    });
    const [delivery] = (await deliveriesOf(api, business, hook.id)).data;
    expect(delivery).toMatchObject({ status: 'exhausted', attemptCount: 1, nextAttemptAt: null });
    const events = await api.data(`query($b: ID!) { events(business: $b, where: {type: {eq: "webhook.disabled"}}) { data { data } } }`, { b: business });
    expect(events.events.data.map((e: any) => e.data.object.id)).toContain(hook.id);
    // Redelivering to a disabled webhook is refused; re-enabling it works.
    const refused = await api.error(`mutation($b: ID!, $w: ID!, $id: ID!) { redeliverWebhookDelivery(business: $b, webhook: $w, id: $id) { id } }`, {
      b: business,
      w: hook.id,
      id: delivery.id,
    });
    expect(refused.code).toBe('CONFLICT');
    await api.data(`mutation($b: ID!, $id: ID!) { updateWebhook(business: $b, id: $id, input: {enabled: true}) { id } }`, { b: business, id: hook.id });
  });

  it('honours Retry-After on 429', async () => {
    let calls = 0;
    const inbox = await receiver(() => (++calls === 1 ? { status: 429, headers: { 'retry-after': '2' } } : { status: 200 }));
    const hook = await createHook(api, business, inbox.url, ['metric.created']);
    await makeEvent(api, business, 'Busy');
    const [delivery] = (await deliveriesOnce(hook.id, (page) => expect(page.data[0].status).toBe('succeeded'), 10_000)).data;
    expect(delivery.attempts[1].at - delivery.attempts[0].at).toBeGreaterThanOrEqual(1_900);
  });

  it('refuses a blocked address when it connects, with error class blocked_address', async () => {
    const inbox = await receiver();
    const hook = await createHook(api, business, inbox.url, ['metric.created']);
    // As if DNS now pointed the endpoint at the cloud metadata address: checked again at connect time.
    await server.orm.em.getConnection().execute(`update webhook set url = 'http://169.254.169.254/latest' where id = ?`, [hook.id]);
    await makeEvent(api, business, 'Rebound');
    const [delivery] = (await deliveriesOnce(hook.id, (page) => expect(page.data[0]?.attempts.length).toBeGreaterThanOrEqual(1))).data;
    expect(delivery.attempts[0]).toMatchObject({ error: 'blocked_address', responseStatus: null });
  });

  it('test, redeliver and recover send again with the same webhook-id; REST shows the log', async () => {
    let failing = true;
    const inbox = await receiver(() => (failing ? { status: 500 } : { status: 200 }));
    const hook = await createHook(api, business, inbox.url, ['order.created']);

    const test = (await api.data(`mutation($b: ID!, $id: ID!) { testWebhook(business: $b, id: $id) { id eventType status } }`, { b: business, id: hook.id }))
      .testWebhook;
    expect(test).toMatchObject({ eventType: 'webhook.test', status: 'pending' });
    const first = await inbox.waitFor((r) => r.headers['webhook-id'] === test.id);
    verify(hook.secret, first);
    expect(JSON.parse(first.body)).toMatchObject({ type: 'webhook.test', data: { object: { id: hook.id, object: 'webhook' } } });
    await eventually(async () => expect((await deliveriesOf(api, business, hook.id)).data[0].status).toBe('exhausted'), 10_000);

    failing = false;
    const before = inbox.requests.length;
    const redelivered = (
      await api.data(`mutation($b: ID!, $w: ID!, $id: ID!) { redeliverWebhookDelivery(business: $b, webhook: $w, id: $id) { id } }`, {
        b: business,
        w: hook.id,
        id: test.id,
      })
    ).redeliverWebhookDelivery;
    expect(redelivered.id).toBe(test.id);
    await eventually(async () => expect((await deliveriesOf(api, business, hook.id)).data[0].status).toBe('succeeded'));
    expect(inbox.requests.slice(before).map((r) => r.headers['webhook-id'])).toEqual([test.id]);

    // REST: the same log, and recover.
    const rest = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}/v2/businesses/${business}/webhooks/${hook.id}${path}`, {
        ...init,
        headers: { ...headers, 'content-type': 'application/json', ...(init.headers as object) },
      });
    const list = await rest('/deliveries?filters=' + encodeURIComponent(JSON.stringify({ field: 'status', type: 'eq', value: 'succeeded' })));
    expect(list.status).toBe(200);
    const listed = await list.json();
    expect(listed).toMatchObject({
      object: 'list',
      total: 1,
      data: [{ id: test.id, object: 'webhookdelivery', webhook: hook.id, eventType: 'webhook.test', status: 'succeeded', attemptCount: 5 }],
    });
    expect(typeof listed.data[0].event).toBe('string');
    const one = await rest(`/deliveries/${test.id}`);
    expect((await one.json()).data.attempts).toHaveLength(5);
    const recovered = await rest('/recover', { method: 'POST', body: JSON.stringify({ since: 0 }) });
    expect(recovered.status).toBe(200);
    expect(await recovered.json()).toEqual({ object: 'webhookrecovery', data: { object: 'webhookrecovery', redelivered: 0 } });
    const bad = await rest('/recover', { method: 'POST', body: JSON.stringify({ since: 'yesterday' }) });
    expect(bad.status).toBe(400);
    const backwards = await rest('/recover', { method: 'POST', body: JSON.stringify({ since: Date.now(), until: 0 }) });
    expect(backwards.status).toBe(400);
    expect((await rest('/deliveries/whd_01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(404);
  });

  it('recover redelivers every failed or exhausted delivery in the range', async () => {
    let failing = true;
    const inbox = await receiver(() => (failing ? { status: 500 } : { status: 200 }));
    const hook = await createHook(api, business, inbox.url, ['metric.created']);
    const since = Date.now();
    await makeEvent(api, business, 'R1');
    await makeEvent(api, business, 'R2');
    await eventually(async () => expect((await deliveriesOf(api, business, hook.id, { status: { eq: 'exhausted' } })).total).toBe(2), 15_000);
    failing = false;
    const { recoverWebhook } = await api.data(
      `mutation($b: ID!, $id: ID!, $since: Timestamp!) { recoverWebhook(business: $b, id: $id, input: {since: $since}) { redelivered } }`,
      { b: business, id: hook.id, since },
    );
    expect(recoverWebhook.redelivered).toBe(2);
    await eventually(async () => expect((await deliveriesOf(api, business, hook.id, { status: { eq: 'succeeded' } })).total).toBe(2));
  });

  it('rotating the secret signs with both secrets for a while', async () => {
    const inbox = await receiver();
    const hook = await createHook(api, business, inbox.url, ['metric.created']);
    const rotated = (await api.data(`mutation($b: ID!, $id: ID!) { rotateWebhookSecret(business: $b, id: $id) { id secret } }`, { b: business, id: hook.id }))
      .rotateWebhookSecret;
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(hook.secret);
    const metric = await makeEvent(api, business, 'Rotated');
    const request = await inbox.waitFor((r) => r.body.includes(metric.id));
    expect((request.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
    verify(rotated.secret, request);
    verify(hook.secret, request);
    const again = await api.data(`query($b: ID!, $id: ID!) { webhook(business: $b, id: $id) { secret } }`, { b: business, id: hook.id });
    expect(again.webhook.secret).toBeNull();
  });

  it("another business's webhook or delivery is NOT_FOUND", async () => {
    const inbox = await receiver();
    const hook = await createHook(api, business, inbox.url, ['metric.created']);
    const test = (await api.data(`mutation($b: ID!, $id: ID!) { testWebhook(business: $b, id: $id) { id } }`, { b: business, id: hook.id })).testWebhook;
    const stranger = await createTenant(server);
    const other = client(server, stranger.headers);
    const vars = { b: stranger.businessId, w: hook.id, id: test.id };
    for (const q of [
      `query($b: ID!, $w: ID!) { webhookDeliveries(business: $b, webhook: $w) { total } }`,
      `query($b: ID!, $w: ID!, $id: ID!) { webhookDelivery(business: $b, webhook: $w, id: $id) { id } }`,
      `mutation($b: ID!, $w: ID!, $id: ID!) { redeliverWebhookDelivery(business: $b, webhook: $w, id: $id) { id } }`,
      `mutation($b: ID!, $w: ID!) { testWebhook(business: $b, id: $w) { id } }`,
      `mutation($b: ID!, $w: ID!) { rotateWebhookSecret(business: $b, id: $w) { id } }`,
      `mutation($b: ID!, $w: ID!) { recoverWebhook(business: $b, id: $w, input: {since: 0}) { redelivered } }`,
    ]) {
      expect([q, (await other.error(q, vars)).code]).toEqual([q, 'NOT_FOUND']);
    }
  });
});
