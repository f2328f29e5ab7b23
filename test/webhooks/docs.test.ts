import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { EVENT_TYPES } from '../../src/modules/event/event.inputs.js';
import { ROUTES } from '../../rest-adapter/route.table.js';
import { freePort } from '../helpers/ports.js';
import { createHook, deliveriesOf, eventually, makeEvent, startDeliveryServer } from './webhook-helpers.js';

/** docs/webhooks.md: every example is run or checked here (its ```graphql blocks in test/graphql/docs-examples.test.ts). */
const ROOT = path.resolve(import.meta.dirname, '../..');
const text = fs.readFileSync(path.join(ROOT, 'docs/webhooks.md'), 'utf8');
const blocks = (lang: string) => [...text.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);

it('the receiver example verifies and deduplicates real deliveries', async () => {
  const [source] = blocks('js');
  // Inside node_modules' parent chain, so the example's `import 'standardwebhooks'` resolves as it would in an app.
  const dir = path.join(ROOT, 'node_modules/.cache');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `webhooks-doc-receiver-${process.pid}.mjs`);
  fs.writeFileSync(file, source);
  const { server, api, business } = await startDeliveryServer();
  const port = await freePort();
  let child: ReturnType<typeof spawn> | undefined;
  try {
    // The secret is only known once the webhook exists: create it first (the receiver is down for a moment; retried).
    const hook = await createHook(api, business, `http://127.0.0.1:${port}/feedback`, ['metric.created']);
    child = spawn(process.execPath, [file], {
      env: { ...process.env, NODE_OPTIONS: '', PORT: String(port), WEBHOOK_SECRET: hook.secret },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout!.on('data', (c) => (output += c));
    child.stderr!.on('data', (c) => (output += c));
    await new Promise((r) => setTimeout(r, 500));
    const metric = await makeEvent(api, business, 'Doc');
    await eventually(async () => expect((await deliveriesOf(api, business, hook.id)).data[0]?.status).toBe('succeeded'));
    const [delivery] = (await deliveriesOf(api, business, hook.id)).data;
    expect(delivery.attempts.at(-1).responseStatus).toBe(204);
    // Redelivered: the same webhook-id, acknowledged again but not processed twice.
    await api.data(`mutation($b: ID!, $w: ID!, $id: ID!) { redeliverWebhookDelivery(business: $b, webhook: $w, id: $id) { id } }`, {
      b: business,
      w: hook.id,
      id: delivery.id,
    });
    await eventually(async () => expect((await deliveriesOf(api, business, hook.id)).data[0].attempts.at(-1).responseStatus).toBe(204));
    await eventually(async () => expect((await deliveriesOf(api, business, hook.id)).data[0].attemptCount).toBe(delivery.attemptCount + 1));
    expect(output.match(/received metric\.created evt_\w+ \(delivery whd_\w+\)/g)).toHaveLength(1);
    expect(metric.id).toMatch(/^mtr_/);
  } finally {
    child?.kill();
    fs.rmSync(file, { force: true });
    await server.stop();
  }
}, 60_000);

it('the request example carries a valid signature of its body', () => {
  const [request] = blocks('http');
  const header = (name: string) => new RegExp(`^${name}: (.+)$`, 'm').exec(request)![1];
  const body = request.split('\n\n')[1].trim();
  const key = Buffer.from('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'.slice(6), 'base64');
  const expected = createHmac('sha256', key)
    .update(`${header('webhook-id')}.${header('webhook-timestamp')}.${body}`)
    .digest('base64');
  expect(header('webhook-signature')).toBe(`v1,${expected}`);
  expect(Object.keys(JSON.parse(body))).toEqual(['id', 'type', 'timestamp', 'business', 'data']);
});

it('every event example has the documented shape and a real type', () => {
  const examples = blocks('json').filter((b) => b.includes('"evt_')); // the event bodies, not the Variables block
  expect(examples.length).toBeGreaterThanOrEqual(5);
  for (const source of examples) {
    const event = JSON.parse(source);
    expect(Object.keys(event)).toEqual(['id', 'type', 'timestamp', 'business', 'data']);
    expect([...EVENT_TYPES, 'webhook.test']).toContain(event.type);
    expect(event.id).toMatch(/^evt_[0-9A-Z]{26}$/);
    expect(event.business).toMatch(/^bus_[0-9A-Z]{26}$/);
    expect(Number.isInteger(event.timestamp)).toBe(true);
    expect(event.data.object.object).toBe(event.type.split('.')[0]);
  }
});

it('every REST example names a route that exists', () => {
  const lines = blocks('sh')
    .flatMap((b) => b.split('\n'))
    .filter((l) => l.startsWith('curl'));
  expect(lines.length).toBeGreaterThanOrEqual(6);
  for (const line of lines) {
    const method = /-X (\w+)/.exec(line)?.[1] ?? 'GET';
    const url = /"\$BASE([^"?]+)/.exec(line)![1].replace(/\$(BUS|WH|DELIVERY)/g, 'x');
    const match = ROUTES.find((r) => r.method === method && new RegExp(`^${r.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(url));
    expect([line, Boolean(match)]).toEqual([line, true]);
  }
});
