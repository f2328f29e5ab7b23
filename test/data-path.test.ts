import type { EntityManager } from '@mikro-orm/postgresql';
import { useTestServer, type TestServer } from './helpers/server.js';
import { createTenant } from './helpers/auth.js';
import { countStatements } from './helpers/sql-counter.js';
import { findPage } from '../src/kit/list/list.query.js';
import { Loaders } from '../src/kit/graphql/loaders.js';
import { sql } from 'kysely';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../src/db/orm.config.js';
import { db, inTransaction, MAX_PREPARED, ormPool, runShaped } from '../src/kit/db/db.js';
import { Survey } from '../src/modules/survey/survey.entity.js';
import { Order } from '../src/modules/order/order.entity.js';
import { newId } from '../src/shared/id.js';

let server: TestServer;
useTestServer((s) => (server = s));

const ARGS = { page: 0, pageSize: 50 };
const surveysOf = (em: EntityManager, business: string) => findPage<Survey, Survey>(em, Survey, { scope: { business }, args: ARGS, present: (s) => s });

/**
 * The kit's reads (lists, loaders, a module's Kysely) run on the EntityManager they are given: inside its transaction
 * when it has one, so a change reads back what it wrote before it commits, and nothing outside sees it until then.
 */
describe('one data path', () => {
  it('reads inside the transaction see its own uncommitted writes; reads outside do not, until it commits', async () => {
    const { businessId: business } = await createTenant(server);
    const id = newId('survey');
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inside!: () => void;
    const written = new Promise<void>((resolve) => (inside = resolve));

    const transaction = server.orm.em.fork().transactional(async (tx) => {
      tx.create(Survey, { id, business, name: 'Written in the transaction', status: 'draft' } as never);
      await tx.flush();
      const page = await surveysOf(tx, business);
      expect(page.data.map((s) => s.id)).toEqual([id]);
      expect(page.total).toBe(1);
      expect((await new Loaders(tx).byId(Survey).load(id))?.name).toBe('Written in the transaction');
      expect(await db(tx).selectFrom('survey').select('name').where('id', '=', id).executeTakeFirst()).toEqual({ name: 'Written in the transaction' });
      inside();
      await held;
    });

    await written;
    const outside = server.orm.em.fork();
    expect((await surveysOf(outside, business)).total).toBe(0);
    expect(await new Loaders(outside).byId(Survey).load(id)).toBeNull();
    release();
    await transaction;
    expect((await surveysOf(server.orm.em.fork(), business)).data.map((s) => s.name)).toEqual(['Written in the transaction']);
  });

  it('inTransaction hands its work an EntityManager in the transaction: its reads see its writes, and a throw undoes them', async () => {
    const { businessId: business } = await createTenant(server);
    const insert = (tx: EntityManager, id: string, name: string) =>
      db(tx).insertInto('survey').values({ id, business_id: business, name, status: 'draft', created_at: new Date(), updated_at: new Date() }).execute();
    const kept = newId('survey');
    await inTransaction(server.orm.em, async (tx) => {
      await insert(tx, kept, 'Kept');
      expect((await surveysOf(tx, business)).data.map((s) => s.name)).toEqual(['Kept']);
    });
    await expect(
      inTransaction(server.orm.em, async (tx) => {
        await insert(tx, newId('survey'), 'Undone');
        expect((await surveysOf(tx, business)).total).toBe(2);
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect((await surveysOf(server.orm.em.fork(), business)).data.map((s) => s.name)).toEqual(['Kept']);
  });

  it('reads each column as its entity declares it (decimals as numbers, JSON as objects, timestamps as Dates), on every path', async () => {
    const tenant = await createTenant(server);
    const input = { externalOrderId: 'O-1', total: 12.5, subtotal: 10, currency: 'PKR', metadata: { table: '4' }, items: [{ name: 'Tea', quantity: 1 }] };
    const { body } = await server.graphql(
      `mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`,
      { b: tenant.businessId, i: input },
      tenant.headers,
    );
    expect(body.errors).toBeUndefined();
    const em = server.orm.em.fork();
    const [listed] = (await findPage<Order, Order>(em, Order, { scope: { business: tenant.businessId }, args: ARGS, present: (o) => o })).data;
    const loaded = (await new Loaders(em).byId(Order).load(body.data.createOrder.id))!;
    for (const order of [listed, loaded]) {
      expect(order.total).toBe(12.5);
      expect(order.subtotal).toBe(10);
      expect(order.metadata).toEqual({ table: '4' });
      expect(order.createdAt).toBeInstanceOf(Date);
      expect(order.business).toBe(tenant.businessId);
    }
  });

  it("logs a module's Kysely statements in the ORM's statement log, as the ORM's own", async () => {
    const counter = countStatements(server.orm);
    try {
      await db(server.orm.em.fork()).selectFrom('business').select('id').limit(1).execute();
      expect(counter.statements).toEqual([expect.stringMatching(/^select "id" from "business" limit \$1$/)]);
    } finally {
      counter.restore();
    }
  });

  it('prepares a statement run with `prepare` outside a transaction too (straight on the pool)', async () => {
    // A pool of one connection, so the look at pg_prepared_statements is on the connection that ran the statement.
    const orm = await MikroORM.init(ormConfig(server.db.url, { pool: { min: 1, max: 1 } }));
    try {
      const em = orm.em.fork();
      const run = () => runShaped(em, 'test.prepared.pool', [7], () => db(em).selectNoFrom(sql<number>`${7}::int * 6`.as('n')), { prepare: true });
      expect(await run()).toEqual([{ n: 42 }]);
      expect(await run()).toEqual([{ n: 42 }]);
      const { rows } = await (await ormPool(em)).query(`select statement from pg_prepared_statements`);
      expect(rows.map((r: { statement: string }) => r.statement).filter((text: string) => text.includes('* 6'))).toHaveLength(1);
    } finally {
      await orm.close(true);
    }
  });

  it('keeps a statement run with `prepare` parsed on its connection, and prepares no more than MAX_PREPARED texts', async () => {
    await server.orm.em.fork().transactional(async (tx) => {
      // One transaction: every statement below runs on its one connection.
      const preparedHere = async () => Number((await sql<{ n: string }>`select count(*) as n from pg_prepared_statements`.execute(db(tx))).rows[0].n);
      const before = await preparedHere();
      const run = (i: number) =>
        runShaped(tx, `test.prepared.${i}`, [i], () => db(tx).selectNoFrom(sql<number>`${i}::int + ${sql.lit(i)}`.as('n')), { prepare: true });
      expect(await run(0)).toEqual([{ n: 0 }]);
      expect(await preparedHere()).toBe(before + 1);
      // Each its own text: the number is written into it.
      for (let i = 1; i < MAX_PREPARED + 50; i++) await run(i);
      const after = await preparedHere();
      expect(after).toBeGreaterThan(before + MAX_PREPARED - 20);
      expect(after).toBeLessThanOrEqual(before + MAX_PREPARED);
      // Past the bound a statement still runs, unnamed.
      expect(await run(MAX_PREPARED + 49)).toEqual([{ n: 2 * (MAX_PREPARED + 49) }]);
    });
  });
});
