import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { jest } from '@jest/globals';
import { ormPool } from '../../src/kit/db/db.js';
import { LISTENER_APPLICATION_NAME } from '../../src/kit/signals/pg-listener.js';
import { codeBlocks, readDoc } from '../helpers/docs.js';
import type { TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { client, useTwoTenants, type Client } from '../helpers/graphql.js';
import { liveClient, type LiveClient } from '../helpers/live.js';
import { RECHECK_MS } from '../../src/graphql/subscriptions.js';
import { REVOCATION_CACHE_MS } from '../../src/modules/oauth/revocation.cache.js';

jest.setTimeout(60_000);

let server: TestServer, a: Client, ta: Tenant, busA: string, busB: string;
let survey: string;
const open: LiveClient[] = [];
useTwoTenants((t) => ({ server, a, ta, busA, busB } = t));
beforeAll(async () => {
  survey = (await a.data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "Live"}) { id } }`, { b: busA })).createSurvey.id;
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((l) => l.dispose()));
});

const live = (authorization = ta.headers.authorization) => {
  const l = liveClient(server.url, authorization);
  open.push(l);
  return l;
};
const SUBSCRIPTION = `subscription($b: ID!, $t: [String!]) { eventRecorded(business: $b, types: $t) { id object type data createdAt business { id } } }`;
const submit = async (c: Client = a) =>
  (await c.data(`mutation($b: ID!, $s: ID!) { createSubmission(business: $b, survey: $s, input: {answers: []}) { id } }`, { b: busA, s: survey }))
    .createSubmission.id as string;

/**
 * Nothing acknowledges a subscription in graphql-ws: writes go on until the first event arrives, then every later
 * write must be heard. Returns the ids written.
 */
async function untilHeard(l: LiveClient, write: () => Promise<string>): Promise<string[]> {
  const ids: string[] = [];
  for (const started = Date.now(); !l.received.length; ) {
    if (Date.now() - started > 15_000) throw new Error('no event within 15 s');
    ids.push(await write());
    await new Promise((r) => setTimeout(r, 100));
  }
  return ids;
}

describe('eventRecorded (graphql-ws on /graphql)', () => {
  it('hears each new submission of its business once, as the events list shows it', async () => {
    const l = live();
    void l.listen(SUBSCRIPTION, { b: busA, t: ['submission.created'] });
    const ids = await untilHeard(l, () => submit());
    // From the first write heard on, every write is heard, in order.
    const first = ids.indexOf(l.received[0].eventRecorded.data.object.id);
    expect(first).toBeGreaterThanOrEqual(0);
    const more = [await submit(), await submit()];
    const heard = await l.until(ids.length - first + 2);
    expect(heard.map((d) => d.eventRecorded.data.object.id)).toEqual([...ids.slice(first), ...more]);
    const event = heard.at(-1).eventRecorded;
    expect(event).toMatchObject({ object: 'event', type: 'submission.created', business: { id: busA } });
    const listed = await a.data(`query($b: ID!, $id: ID!) { event(business: $b, id: $id) { id object type data createdAt } }`, { b: busA, id: event.id });
    expect(listed.event).toEqual({ id: event.id, object: 'event', type: event.type, data: event.data, createdAt: event.createdAt });
  });

  it('hears only the types asked for, and by default every type its scopes allow', async () => {
    const ordersOnly = await createTenant(server, { scopes: ['orders:read', 'orders:write', 'surveys:write', 'submissions:write'] });
    const c = client(server, ordersOnly.headers);
    const s = (await c.data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "S"}) { id } }`, { b: ordersOnly.businessId })).createSurvey.id;
    const l = live(ordersOnly.headers.authorization);
    void l.listen(SUBSCRIPTION, { b: ordersOnly.businessId });
    let n = 0;
    await untilHeard(l, async () => {
      // A submission (not heard: no submissions:read) then an order (heard).
      await c.data(`mutation($b: ID!, $s: ID!) { createSubmission(business: $b, survey: $s, input: {answers: []}) { id } }`, { b: ordersOnly.businessId, s });
      return (
        await c.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, {
          b: ordersOnly.businessId,
          i: { externalOrderId: `live-${n++}`, total: 10, currency: 'PKR' },
        })
      ).createOrder.id;
    });
    expect(l.received.every((d) => d.eventRecorded.type === 'order.created')).toBe(true);
    // Asking for what the token may not hear is refused, naming it.
    const refused = (await live(ordersOnly.headers.authorization).listen(SUBSCRIPTION, { b: ordersOnly.businessId, t: ['submission.created'] })) as any[];
    expect(refused[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    expect(refused[0].message).toContain('submission.created');
  });

  it('refuses another business, unknown types, and queries over the socket', async () => {
    const other = (await live().listen(SUBSCRIPTION, { b: busB })) as any[];
    expect(other[0]).toMatchObject({ extensions: { code: 'FORBIDDEN' } });
    const unknown = (await live().listen(SUBSCRIPTION, { b: busA, t: ['order.eaten'] })) as any[];
    expect(unknown[0]).toMatchObject({ extensions: { code: 'BAD_USER_INPUT', details: [{ field: 'types', message: 'not event types: order.eaten' }] } });
    const query = (await live().listen(`query { health { status } }`)) as any[];
    expect(query[0].message).toMatch(/POST \/graphql/);
  });

  it('closes a connection without a valid token (4403), and one whose token is revoked (4401)', async () => {
    for (const authorization of ['Bearer nonsense', '']) {
      const refused = live(authorization);
      void refused.listen(SUBSCRIPTION, { b: busA });
      expect((await refused.closed).code).toBe(4403);
    }

    const t = await createTenant(server);
    const l = live(t.headers.authorization);
    const s = (await client(server, t.headers).data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "R"}) { id } }`, { b: t.businessId }))
      .createSurvey.id;
    void l.listen(SUBSCRIPTION, { b: t.businessId });
    await untilHeard(
      l,
      async () =>
        (
          await client(server, t.headers).data(`mutation($b: ID!, $s: ID!) { createSubmission(business: $b, survey: $s, input: {answers: []}) { id } }`, {
            b: t.businessId,
            s,
          })
        ).createSubmission.id,
    );
    const revoked = await fetch(`${server.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId: t.clientId, clientSecret: t.clientSecret, token: t.token }),
    });
    expect(revoked.status).toBe(200);
    const started = Date.now();
    expect(await l.closed).toEqual({ code: 4401, reason: 'Unauthorized: the access token was revoked or has expired' });
    expect(Date.now() - started).toBeLessThan(RECHECK_MS + REVOCATION_CACHE_MS + 2_000);
  });

  it('ends subscriptions with an error when the LISTEN connection is lost, and hears again once it is back', async () => {
    const l = live();
    const ended = l.listen(SUBSCRIPTION, { b: busA, t: ['submission.created'] });
    await untilHeard(l, () => submit());
    const killed = await server.orm.em
      .getConnection()
      // This server's own: other test files' servers listen too, each in its own database.
      .execute(`select pg_terminate_backend(pid) as gone from pg_stat_activity where application_name = ? and datname = current_database()`, [
        LISTENER_APPLICATION_NAME,
      ]);
    expect(killed.length).toBeGreaterThan(0);
    const errors = (await ended) as any[];
    expect(errors[0]).toMatchObject({ message: 'Live events were interrupted: subscribe again', extensions: { code: 'SERVICE_UNAVAILABLE' } });
    // The feed reconnects by itself (every 2 s until it can); a new subscription then hears every write again.
    let again: LiveClient | undefined;
    for (const started = Date.now(); ; await new Promise((r) => setTimeout(r, 250))) {
      if (Date.now() - started > 15_000) throw new Error('the feed did not come back');
      again = live();
      const refused = await Promise.race([
        again.listen(SUBSCRIPTION, { b: busA, t: ['submission.created'] }),
        new Promise((r) => setTimeout(() => r('open'), 300)),
      ]);
      if (refused === 'open') break;
    }
    await untilHeard(again!, () => submit());
  });

  it('notifies the live events channel only for a business some process has a subscriber of, and forgets it with the last', async () => {
    const pool = await ormPool(server.orm.em);
    const sql = server.orm.em.getConnection();
    const spy = await pool.connect();
    const heard: string[] = [];
    // Each payload: "@<sending process> " then a line "<business> <event id> <type>" per event (kit/signals/signals.ts).
    spy.on(
      'notification',
      (n) =>
        n.channel === 'events' &&
        heard.push(
          ...n
            .payload!.replace(/^@\S* /, '')
            .split('\n')
            .map((line) => line.split(' ')[0]),
        ),
    );
    await spy.query('listen events');
    const t = await createTenant(server);
    const c = client(server, t.headers);
    const s = (await c.data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "Quiet"}) { id } }`, { b: t.businessId })).createSurvey.id;
    const write = async () =>
      (await c.data(`mutation($b: ID!, $s: ID!) { createSubmission(business: $b, survey: $s, input: {answers: []}) { id } }`, { b: t.businessId, s }))
        .createSubmission.id as string;
    const rows = async () =>
      (await sql.execute(`select process, expires_at > now() as live from event_subscriber where business_id = ?`, [t.businessId])) as {
        process: string;
        live: boolean;
      }[];
    const settle = () => new Promise((r) => setTimeout(r, 300));
    try {
      // Nobody listens: written and listed, but not notified.
      await write();
      await settle();
      expect(heard).not.toContain(t.businessId);
      expect(await rows()).toEqual([]);

      const l = live(t.headers.authorization);
      void l.listen(SUBSCRIPTION, { b: t.businessId, t: ['submission.created'] });
      await untilHeard(l, write);
      expect(heard).toContain(t.businessId);
      expect(await rows()).toEqual([{ process: expect.any(String), live: true }]);

      // The last subscriber gone, so is the registration, and the notifications with it.
      await l.dispose();
      for (const started = Date.now(); (await rows()).length; await new Promise((r) => setTimeout(r, 100))) {
        if (Date.now() - started > 5_000) throw new Error('the registration outlived its subscriber');
      }
      heard.length = 0;
      await write();
      await settle();
      expect(heard).not.toContain(t.businessId);

      // Another process's registration counts while it lasts: an expired one (a process that died) does not.
      await sql.execute(`insert into event_subscriber (business_id, process, expires_at) values (?, 'gone', now() - interval '1 second')`, [t.businessId]);
      await write();
      await settle();
      expect(heard).not.toContain(t.businessId);
      await sql.execute(`update event_subscriber set process = 'elsewhere', expires_at = now() + interval '1 minute' where business_id = ?`, [t.businessId]);
      await write();
      await settle();
      expect(heard).toContain(t.businessId);
    } finally {
      await sql.execute(`delete from event_subscriber where business_id = ?`, [t.businessId]);
      spy.release(true);
    }
  });

  it("docs/graphql.md's Node client runs as written and prints what it hears", async () => {
    const [example] = codeBlocks(readDoc('docs/graphql.md'), 'js');
    // Beside node_modules, so that its imports resolve as in a partner's project.
    const file = path.join(process.cwd(), `.live-example-${process.pid}.mjs`);
    fs.writeFileSync(file, example.replace('ws://localhost:4000', server.url.replace(/^http/, 'ws')).replace("'bus_...'", `'${busA}'`));
    const child = spawn(process.execPath, [file], { env: { ...process.env, TOKEN: ta.token }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const ids: string[] = [];
      for (const started = Date.now(); !out.includes('submission.created'); await new Promise((r) => setTimeout(r, 100))) {
        if (Date.now() - started > 15_000 || child.exitCode !== null) throw new Error(`the example printed: ${out}`);
        ids.push(await submit());
      }
      const [type, id] = out.trim().split('\n')[0].split(' ');
      expect(type).toBe('submission.created');
      expect(ids).toContain(id);
    } finally {
      child.kill();
      fs.rmSync(file, { force: true });
    }
  });
});
