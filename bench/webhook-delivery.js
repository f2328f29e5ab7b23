// Outbound webhook delivery: orders pushed through the custom order webhook (each records order.created) fanned out
// to 10 webhooks on a local receiver. Prints deliveries/s and the time from each event's commit to its first
// attempt's arrival (p50/p99), and how many arrived twice. Two phases: the orders as fast as the clients can push
// them (the throughput), then paced at PACED orders/s, i.e. 1,000 deliveries/s offered by default (the latency: at
// saturation the latency only measures the backlog, which grows with the number of orders sent).
// Goal (issue 11): >= 1,000 deliveries/s on a 2-core machine, p99 < 1 s.
//   node bench/webhook-delivery.js     env: ORDERS (default 2000), CONNECTIONS (8), WEBHOOKS (10), WORKERS (64),
//                                           PACED (100 orders/s), PACED_SECONDS (10)
// Loopback only, bounded: starts the built service (dist/) on a temp DATA_DIR and stops it at the end.
import { clientToken, cpuPer, sleep, startService } from './lib/service.js';
import { startReceiver } from './lib/receiver.js';

const ORDERS = Number(process.env.ORDERS ?? 2000);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 8);
const WEBHOOKS = Number(process.env.WEBHOOKS ?? 10);
const PACED = Number(process.env.PACED ?? 100); // orders/s of the latency phase: x WEBHOOKS deliveries/s offered
const PACED_SECONDS = Number(process.env.PACED_SECONDS ?? 10);

// The receiver: answers 204 at once, notes when each delivery first arrived and the event's own timestamp.
const arrivals = new Map(); // webhook-id -> { at, eventAt }
let received = 0;
const receiver = await startReceiver((body, req) => {
  received++;
  const id = req.headers['webhook-id'];
  if (!arrivals.has(id)) arrivals.set(id, { at: Date.now(), eventAt: JSON.parse(body).timestamp });
});

const service = await startService(
  'webhooks',
  {
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // The default 10/s per webhook is a protection for receivers; the bench measures the machinery.
    WEBHOOK_RATE_LIMIT: '100000',
    ...(process.env.WORKERS ? { WORKERS: process.env.WORKERS } : {}),
  },
  { limitSeconds: 600 },
);
try {
  const demo = service.admin('demo');
  const business = demo.business?.id ?? demo.data?.business?.id;
  const secret = demo.customIntegration?.secret ?? demo.data?.customIntegration?.secret;
  const credential = demo.credential ?? demo.data?.credential;
  const token = await clientToken(service.base, credential, 'webhooks:read webhooks:write orders:read');
  for (let i = 0; i < WEBHOOKS; i++) {
    const res = await fetch(`${service.base}/v2/businesses/${business}/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ url: receiver.url(`/hook-${i}`), events: ['order.created'] }),
    });
    if (res.status !== 201) throw new Error(`webhook not created: ${res.status} ${await res.text()}`);
  }
  await sleep(500);

  const url = `${service.base}/webhooks/custom/${business}`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${secret}` };
  const run = Date.now().toString(36);
  let serial = 0;
  const postOrder = async () => {
    const n = serial++;
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        externalOrderId: `wh-bench-${run}-${n}`,
        total: '100',
        currency: 'PKR',
        payment: true,
        metadata: { bench: run },
        items: [{ name: 'Tea', quantity: 1, unitPrice: 100 }],
      }),
    });
    if (res.status !== 200 && res.status !== 201) throw new Error(`order ${n}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
  };

  /**
   * One phase: `orders` orders, either as fast as CONNECTIONS clients can push them (closed loop: the most the machine
   * delivers, with a backlog growing whenever ingestion outruns delivery, so latency there measures the backlog) or
   * paced at `perSecond` orders (open loop: each order leaves at its time whatever the service does, the latency a
   * partner sees at that load). Waits for every delivery and reports.
   */
  async function phase(name, orders, perSecond) {
    arrivals.clear();
    received = 0;
    const cpuBefore = service.cpu();
    const started = Date.now();
    if (perSecond) {
      const sent = [];
      for (let i = 0; i < orders; i++) {
        const due = started + (i * 1000) / perSecond;
        if (due > Date.now()) await sleep(due - Date.now());
        sent.push(postOrder());
      }
      await Promise.all(sent);
    } else {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONNECTIONS }, async () => {
          while (next++ < orders) await postOrder();
        }),
      );
    }
    const ordersDone = Date.now();
    const expected = orders * WEBHOOKS;
    while (arrivals.size < expected && Date.now() - ordersDone < 120_000) await sleep(50);
    const finished = Date.now();
    const cpuAfter = service.cpu();
    const latencies = [...arrivals.values()].map((a) => a.at - a.eventAt).sort((a, b) => a - b);
    const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
    const delivered = arrivals.size;
    const rate = delivered / ((finished - started) / 1000);
    console.log(`\n${name}:`);
    console.log(
      `  orders: ${orders} in ${((ordersDone - started) / 1000).toFixed(1)} s (${(orders / ((ordersDone - started) / 1000)).toFixed(0)}/s${perSecond ? `, paced at ${perSecond}/s` : `, ${CONNECTIONS} connections`})`,
    );
    console.log(
      `  deliveries: ${delivered}/${expected} distinct in ${((finished - started) / 1000).toFixed(1)} s -> ${rate.toFixed(0)} deliveries/s; ${received - arrivals.size} arrived twice`,
    );
    console.log(`  ${cpuPer(cpuBefore, cpuAfter, delivered, 'delivery')} (ingesting the orders included)`);
    console.log(`  event commit -> first attempt arrival: p50 ${pct(50)} ms, p90 ${pct(90)} ms, p99 ${pct(99)} ms, max ${latencies.at(-1)} ms`);
    return { rate, p99: pct(99), complete: delivered === expected };
  }

  const saturated = await phase('as fast as the clients push (throughput)', ORDERS);
  const paced = await phase(`paced at ${PACED} orders/s = ${PACED * WEBHOOKS} deliveries/s offered (latency)`, PACED * PACED_SECONDS, PACED);
  const perSecond = saturated.rate;
  // Where the time goes: the HTTP exchange as the delivery log measured it, against a whole attempt's cycle (lease,
  // send, record) implied by the rate and the cap of 4 attempts in flight per webhook.
  const hooks = await (await fetch(`${service.base}/v2/businesses/${business}/webhooks?pageSize=1`, { headers: { authorization: `Bearer ${token}` } })).json();
  const log = await (
    await fetch(`${service.base}/v2/businesses/${business}/webhooks/${hooks.data[0].id}/deliveries?pageSize=100`, {
      headers: { authorization: `Bearer ${token}` },
    })
  ).json();
  const http = log.data.map((d) => d.attempts[0].durationMs).sort((a, b) => a - b);
  console.log(
    `HTTP exchange (delivery log, last 100 of one webhook): p50 ${http[50]} ms, p99 ${http[98]} ms; ` +
      `whole attempt cycle at ${perSecond.toFixed(0)}/s with ${4 * WEBHOOKS} in flight: ~${((4 * WEBHOOKS * 1000) / perSecond).toFixed(0)} ms`,
  );
  const load = (await import('node:os')).loadavg()[0];
  console.log(`machine load average (1 min) at the end: ${load.toFixed(1)} on ${(await import('node:os')).cpus().length} cores`);
  const met = saturated.rate >= 1000 && saturated.complete && paced.complete && paced.p99 < 1000;
  console.log(`goal: >= 1000 deliveries/s, and p99 < 1000 ms at 1,000 deliveries/s offered -> ${met ? 'met' : 'NOT met'}`);
} finally {
  await service.stop();
  receiver.close();
}
