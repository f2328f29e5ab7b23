import pg from 'pg';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../src/db/orm.config.js';
import { createLogger } from '../src/http/logger.js';
import { inTransaction } from '../src/kit/db/db.js';
import { PgListener } from '../src/kit/signals/pg-listener.js';
import { announceAfterCommit, SEND_EVERY_MS, wakeAfterCommit } from '../src/kit/signals/signals.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { startPgProxy, type PgProxy } from './helpers/pg-proxy.js';

/**
 * kit/signals/signals.ts: what a transaction tells leaves after it commits (never when it rolls back, a savepoint's with the
 * transaction around it), to this process's listeners at once and to the others by NOTIFY statements of its own, one
 * per SEND_EVERY_MS at most, with payloads under PostgreSQL's 8000 bytes.
 */
let db: TestDatabase;
/** The ORM under test, through a proxy that records its statements. */
let orm: MikroORM;
let proxy: PgProxy;
let spy: pg.Client;
let listener: PgListener;
const local: string[] = [];
const remote: Array<{ channel: string; payload: string; at: number }> = [];

beforeAll(async () => {
  db = await createTestDatabase();
  proxy = await startPgProxy(db.url);
  orm = await MikroORM.init(ormConfig(proxy.url));
  listener = new PgListener(
    orm,
    ['t_wake', 't_lines'],
    { notification: (channel, payload) => local.push(`${channel}:${payload}`) },
    createLogger('silent'),
    'test',
  );
  await listener.start();
  spy = new pg.Client(db.url);
  await spy.connect();
  spy.on('notification', (n) => remote.push({ channel: n.channel, payload: n.payload ?? '', at: Date.now() }));
  await spy.query('listen t_wake');
  await spy.query('listen t_lines');
});
afterAll(async () => {
  await spy?.end();
  await listener?.stop();
  await orm?.close(true);
  await proxy?.close();
  await db?.drop();
});
beforeEach(() => {
  local.length = 0;
  remote.length = 0;
});

const settle = () => new Promise((r) => setTimeout(r, SEND_EVERY_MS * 4));
const body = (payload: string) => payload.replace(/^@\S* /, '');

it('tells nothing before the commit, then this process at once and the others by one NOTIFY', async () => {
  const em = orm.em.fork();
  const later = Date.now() + 60_000;
  await em.transactional(async (tx) => {
    wakeAfterCommit(tx, 't_wake');
    wakeAfterCommit(tx, 't_wake', later + 1_000);
    wakeAfterCommit(tx, 't_wake', later);
    await tx.getConnection().execute('select 1');
    expect(local).toEqual([]);
  });
  // A line '' (a job due now) and one with the earliest due time later.
  expect(local).toEqual([`t_wake:\n${later}`]);
  await settle();
  expect(remote.map((n) => [n.channel, body(n.payload)])).toEqual([['t_wake', `\n${later}`]]);
  // This process's own notification came back through LISTEN too, and was not heard twice.
  expect(local).toEqual([`t_wake:\n${later}`]);
});

it('tells nothing when the transaction rolls back, and a savepoint waits for the transaction around it', async () => {
  const em = orm.em.fork();
  await expect(
    em.transactional(async (tx) => {
      wakeAfterCommit(tx, 't_wake');
      throw new Error('rolled back');
    }),
  ).rejects.toThrow('rolled back');
  await em.transactional(async (tx) => {
    await tx.transactional(async (inner) => {
      announceAfterCommit(inner, 't_lines', 'kept');
    });
    await expect(
      tx.transactional(async (inner) => {
        announceAfterCommit(inner, 't_lines', 'rolled back');
        throw new Error('inner');
      }),
    ).rejects.toThrow('inner');
    expect(local).toEqual([]);
  });
  expect(local).toEqual(['t_lines:kept']);
  await settle();
  expect(remote.map((n) => [n.channel, body(n.payload)])).toEqual([['t_lines', 'kept']]);
});

it("tells after the kit's inTransaction commits, and not after it fails", async () => {
  await inTransaction(orm.em.fork(), async (tx) => {
    announceAfterCommit(tx, 't_lines', 'written');
    expect(local).toEqual([]);
  });
  await expect(
    inTransaction(orm.em.fork(), async (tx) => {
      announceAfterCommit(tx, 't_lines', 'failed');
      throw new Error('failed');
    }),
  ).rejects.toThrow('failed');
  expect(local).toEqual(['t_lines:written']);
  await settle();
  expect(remote.map((n) => body(n.payload))).toEqual(['written']);
});

it('sends a burst of commits in NOTIFY statements at most one per SEND_EVERY_MS, every line once, each payload under 8000 bytes', async () => {
  const lines = Array.from({ length: 400 }, (_, i) => `bus_${String(i).padStart(26, '0')} evt_${String(i).padStart(26, '0')} order.created`);
  const started = Date.now();
  await Promise.all(lines.map((line) => orm.em.fork().transactional(async (tx) => announceAfterCommit(tx, 't_lines', line))));
  const committed = Date.now();
  await settle();
  const heard = remote.filter((n) => n.channel === 't_lines');
  expect(heard.flatMap((n) => body(n.payload).split('\n')).sort()).toEqual([...lines].sort());
  expect(Math.max(...heard.map((n) => Buffer.byteLength(n.payload)))).toBeLessThan(8000);
  // The NOTIFY statements, as sent: one every SEND_EVERY_MS at most (timers may fire a millisecond early).
  const sent = proxy.statements.filter((st) => st.at >= started && /pg_notify/.test(st.text));
  expect(sent.every((st) => !st.inTransaction)).toBe(true);
  expect(sent.length).toBeLessThanOrEqual(Math.ceil((committed - started) / SEND_EVERY_MS) + 2);
  expect(sent.length).toBeLessThan(lines.length / 10);
  const gaps = sent.slice(1).map((st, i) => st.at - sent[i].at);
  expect(gaps.filter((gap) => gap < SEND_EVERY_MS - 2)).toEqual([]);
  expect(
    local
      .filter((l) => l.startsWith('t_lines:'))
      .flatMap((l) => l.slice('t_lines:'.length).split('\n'))
      .sort(),
  ).toEqual([...lines].sort());
});
