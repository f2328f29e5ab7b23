// Feedback flows end to end: orders pushed to the custom webhook with a matching flow (delay 0, no quiet hours, no
// throttle) through to the e-mail received by a local SMTP server (smtp-server, in this process). Prints requests
// sent per second and the p50/p99 from the order's answer to the e-mail's arrival.
//   node bench/feedback-flows.js     env: CONNECTIONS (default 16), SECONDS (10), DATABASE_URL (optional)
// Loopback only, bounded in time: starts the built service (dist/) on a temp DATA_DIR and stops it at the end.
import { SMTPServer } from 'smtp-server';
import { startService, sleep } from './lib/service.js';

const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const SECONDS = Number(process.env.SECONDS ?? 10);

const received = new Map(); // recipient -> ms
const smtp = new SMTPServer({
  disabledCommands: ['STARTTLS', 'AUTH'],
  logger: false,
  onData(stream, session, callback) {
    stream.on('data', () => {});
    stream.on('end', () => {
      for (const r of session.envelope.rcptTo) received.set(r.address, performance.now());
      callback();
    });
  },
});
await new Promise((resolve) => smtp.listen(0, '127.0.0.1', resolve));
const smtpPort = smtp.server.address().port;

const service = await startService('feedback-flows', { SMTP_URL: `smtp://127.0.0.1:${smtpPort}`, MAIL_FROM: 'Bench <bench@example.com>' });
const { base, stop } = service;
try {
  const demo = service.admin('demo');
  const business = demo.business.id;
  const token = await (
    await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grantType: 'client_credentials', clientId: demo.credential.clientId, clientSecret: demo.credential.clientSecret }),
    })
  ).json();
  const flow = await fetch(`${base}/v2/businesses/${business}/feedback-flows`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token.accessToken}` },
    body: JSON.stringify({ name: 'Bench', survey: demo.survey.id, channels: ['email'], delayMinutes: 0, quietHours: null, throttleDays: 0 }),
  });
  if (flow.status !== 201) throw new Error(`flow: ${flow.status} ${await flow.text()}`);

  const url = `${base}/webhooks/custom/${business}`;
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${demo.customIntegration.secret}` };
  const run = Date.now().toString(36);
  const sentAt = new Map(); // recipient -> ms when the order was answered
  let seq = 0;
  let failures = 0;
  const order = async () => {
    const n = seq++;
    const email = `guest-${run}-${n}@example.com`;
    const res = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        externalOrderId: `ff-${run}-${n}`,
        total: '1250',
        currency: 'PKR',
        customerName: 'Bench Guest',
        customerEmail: email,
        metadata: { bench: run },
      }),
    });
    await res.arrayBuffer();
    if (res.status === 200) sentAt.set(email, performance.now());
    else failures++;
  };
  const started = performance.now();
  const end = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (performance.now() < end) await order();
    }),
  );
  const ordersDone = performance.now();
  // Let the queue drain (bounded).
  for (let i = 0; i < 600 && received.size < sentAt.size; i++) await sleep(50);
  const lastMail = Math.max(...received.values());
  const latencies = [...sentAt]
    .filter(([e]) => received.has(e))
    .map(([e, t]) => received.get(e) - t)
    .sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))]?.toFixed(0);
  console.log(
    `orders: ${sentAt.size} in ${((ordersDone - started) / 1000).toFixed(1)} s (${(sentAt.size / ((ordersDone - started) / 1000)).toFixed(0)}/s, ${failures} failed); ` +
      `e-mails received: ${received.size} (${received.size === sentAt.size ? 'all' : 'MISSING ' + (sentAt.size - received.size)}), ` +
      `${(received.size / ((lastMail - started) / 1000)).toFixed(0)} requests sent/s; order -> e-mail p50 ${pct(50)} ms, p99 ${pct(99)} ms, max ${latencies.at(-1)?.toFixed(0)} ms`,
  );
} finally {
  await stop();
  smtp.close();
}
