// Custom order webhook throughput: ~10 s of NEW orders (3 items each, unique externalOrderId per request) from
// concurrent connections, then ~5 s of repeats of orders already stored. Prints orders/s and p50/p99 per phase.
// Goal (issue 6): >= 1,000 new orders/s with p99 < 100 ms on a 2-core machine.
//   node bench/ingest.js          env: CONNECTIONS (default 32), NEW_SECONDS (10), REPEAT_SECONDS (5), DATABASE_URL (optional)
//   AUDIENCE=1: the business also has a webhook (to a local receiver answering 204) and a live GraphQL subscriber, so
//   every order's events wake the delivery workers and the subscription feed, as in a business someone listens to.
// Loopback only, bounded in time: starts the built service (dist/) on a temp DATA_DIR and stops it at the end.
import http from 'node:http';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { clientToken, cpuPer, freePort, loadPhase, sleep, startService } from './lib/service.js';
import { benchOrder } from './lib/orders.js';

const CONNECTIONS = Number(process.env.CONNECTIONS ?? 32);
const NEW_SECONDS = Number(process.env.NEW_SECONDS ?? 10);
const REPEAT_SECONDS = Number(process.env.REPEAT_SECONDS ?? 5);

const AUDIENCE = process.env.AUDIENCE === '1';

const service = await startService('ingest', AUDIENCE ? { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_RATE_LIMIT: '100000' } : {}, {
  limitSeconds: 120 + 2 * (NEW_SECONDS + REPEAT_SECONDS),
});
const { base, stop } = service;
let audience;

try {
  const demo = service.admin('demo');
  const business = demo.business?.id ?? demo.data?.business?.id;
  const secret = demo.customIntegration?.secret ?? demo.data?.customIntegration?.secret;
  if (!business || !secret) throw new Error(`unexpected demo output: ${JSON.stringify(demo).slice(0, 300)}`);
  const url = `${base}/webhooks/custom/${business}`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${secret}` };
  if (AUDIENCE) audience = await listenTo(business, demo.credential ?? demo.data?.credential);

  const run = `${Date.now().toString(36)}`;
  let seq = 0;
  const orderBody = (n) => JSON.stringify(benchOrder(`bench-${run}`, n));

  const phase = (title, duration, setupRequest) =>
    loadPhase({ url, method: 'POST', headers, connections: CONNECTIONS, duration, requests: [{ setupRequest }] }).then((result) => ({ title, result }));

  const report = ({ title, result }) => {
    const ok = result['2xx'];
    const perSecond = ok / (result.duration || 1);
    console.log(
      `${title}: ${perSecond.toFixed(0)} orders/s (${ok} ok, ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts) ` +
        `latency p50 ${result.latency.p50} ms, p90 ${result.latency.p90} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
    );
    return perSecond;
  };

  // Warm-up (JIT, prepared statements on every pool connection), not measured.
  await phase('warm-up', 2, (req) => ({ ...req, body: orderBody(seq++) }));
  const created = seq;
  const cpuBefore = service.cpu();
  const fresh = report(
    await phase(`new orders (3 items, ${CONNECTIONS} connections, ${NEW_SECONDS} s)`, NEW_SECONDS, (req) => ({ ...req, body: orderBody(seq++) })),
  );
  // Read after a moment: the workers' share (fan-out of what was just written) lands just after the phase.
  await new Promise((r) => setTimeout(r, 1_000));
  const stored = seq;
  console.log(cpuPer(cpuBefore, service.cpu(), stored - created, 'new order'));
  let r = 0;
  const repeats = report(
    await phase(`repeats of stored orders (${REPEAT_SECONDS} s)`, REPEAT_SECONDS, (req) => {
      const n = created + ((r++ * 7919) % (stored - created));
      // Half of them pay now: PENDING -> ACCEPTED moves with their order.updated events, the rest change nothing.
      return { ...req, body: orderBody(n).replace('"payment":false', '"payment":true') };
    }),
  );
  if (audience) console.log(`audience: ${audience.delivered()} webhook deliveries, ${audience.live()} live events received`);
  console.log(
    `goal: >= 1000 new orders/s with p99 < 100 ms -> ${fresh >= 1000 ? 'met' : 'NOT met'} (new ${fresh.toFixed(0)}/s, repeats ${repeats.toFixed(0)}/s)`,
  );
} finally {
  await audience?.close();
  await stop();
}

/** A webhook on a local receiver and a live subscriber of every event of `business`; counts what each got. */
async function listenTo(business, credential) {
  let delivered = 0;
  let live = 0;
  const receiver = http.createServer((req, res) => req.resume().on('end', () => ((delivered += 1), res.writeHead(204).end())));
  const port = await freePort();
  await new Promise((r) => receiver.listen(port, '127.0.0.1', r));
  const token = await clientToken(base, credential, 'webhooks:read webhooks:write events:read');
  const created = await fetch(`${base}/v2/businesses/${business}/webhooks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ['order.created'] }),
  });
  if (created.status !== 201) throw new Error(`webhook not created: ${created.status} ${await created.text()}`);
  const client = createClient({
    url: `${base.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${token}` },
    retryAttempts: 0,
  });
  client.subscribe(
    { query: 'subscription($b: ID!) { eventRecorded(business: $b) { id type } }', variables: { b: business } },
    { next: () => (live += 1), error: (err) => console.error('live subscription:', err), complete: () => {} },
  );
  await sleep(500);
  return {
    delivered: () => delivered,
    live: () => live,
    async close() {
      await client.dispose();
      receiver.closeAllConnections();
      receiver.close();
    },
  };
}
