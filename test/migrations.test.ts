import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { migrationsList } from '../src/db/migrations/index.js';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ empty: true });
});
afterAll(() => db?.drop());

/** The test database migrated, then `check` on a connection of its own to it, closed after. */
async function migrated(check: (sql: pg.Client) => Promise<void>) {
  await db.orm.migrator.up();
  const sql = new pg.Client(db.url);
  await sql.connect();
  try {
    await check(sql);
  } finally {
    await sql.end();
  }
}

/** A new empty database migrated up to `to`, then `check` on a connection of its own to it; both gone after. */
async function migratedTo(to: string, check: (sql: pg.Client, fresh: TestDatabase) => Promise<void>) {
  const fresh = await createTestDatabase({ empty: true });
  const sql = new pg.Client(fresh.url);
  await sql.connect();
  try {
    await fresh.orm.migrator.up({ to });
    await check(sql, fresh);
  } finally {
    await sql.end();
    await fresh.drop();
  }
}

describe('migrations', () => {
  it('build the whole schema on an empty database, and a second run applies nothing', async () => {
    const applied = await db.orm.migrator.up();
    expect(applied.map((m) => m.name)).toEqual(migrationsList.map((m) => m.name));
    expect(await db.orm.migrator.up()).toEqual([]);
    // The entities (base classes included) map to exactly the schema the migrations build.
    expect((await db.orm.schema.getUpdateSchemaSQL({ wrap: false })).trim()).toBe('');

    const sql = new pg.Client(db.url);
    await sql.connect();
    try {
      const tables = (await sql.query(`select table_name from information_schema.tables where table_schema = 'public'`)).rows.map((r) => r.table_name);
      for (const table of [
        'business',
        'app_user',
        'membership',
        'location',
        'metric',
        'survey',
        'survey_step',
        'submission',
        'menu_item',
        'customer_order',
        'order_item',
        'credential',
        'custom_integration',
        'webhook',
        'event',
      ]) {
        expect(tables).toContain(table);
      }
      // The order idempotency key treats a missing external location id as ''.
      await sql.query(`insert into business (id, name, created_at, updated_at) values ('bus_1', 'B', now(), now())`);
      const order = (id: string, location: string | null) =>
        sql.query(
          `insert into customer_order (id, business_id, external_order_id, external_location_id, source, currency, total, metadata, created_at, updated_at)
           values ($1, 'bus_1', 'A-1', $2, 'custom', 'PKR', 10, '{}', now(), now())`,
          [id, location],
        );
      await order('ord_1', null);
      await expect(order('ord_2', null)).rejects.toThrow(/customer_order_external_unique/);
      await order('ord_3', 'LHR'); // same order id at another location: another order
      await expect(order('ord_4', 'LHR')).rejects.toThrow(/customer_order_external_unique/);
      // Menu item names are unique per business whatever their case, Unicode included.
      await sql.query(`insert into menu_item (id, business_id, name, created_at, updated_at) values ('mi_1', 'bus_1', 'Crème Brûlée', now(), now())`);
      await expect(
        sql.query(`insert into menu_item (id, business_id, name, created_at, updated_at) values ('mi_2', 'bus_1', 'CRÈME BRÛLÉE', now(), now())`),
      ).rejects.toThrow(/menu_item_business_name_unique/);
      // Money is numeric, not float.
      const { rows } = await sql.query(`select data_type from information_schema.columns where table_name = 'customer_order' and column_name = 'total'`);
      expect(rows[0].data_type).toBe('numeric');
    } finally {
      await sql.end();
    }
  });

  it("leave every entity trigger's function as the entity declares it (the schema diff ignores triggers)", async () => {
    await migrated(async (sql) => {
      const squeeze = (text: string) => text.replace(/\s+/g, ' ').trim();
      const declared = db.orm.getMetadata().getAll();
      const triggers = [...declared.values()].flatMap((meta) =>
        (meta.triggers ?? []).map((t) => ({ fn: `${meta.tableName}_${t.name}_fn`, body: t.body as string })),
      );
      // The audience lock's triggers (event.signal.ts); the memos' NOTIFY triggers are gone (issue 51, item 4).
      expect(triggers.map((t) => t.fn).sort()).toEqual([
        'event_event_audience_fn',
        'event_subscriber_event_subscriber_audience_lock_fn',
        'webhook_webhook_fanout_lock_fn',
      ]);
      const notifying = await sql.query(
        `select c.relname, t.tgname from pg_trigger t join pg_class c on c.oid = t.tgrelid join pg_proc p on p.oid = t.tgfoid where not t.tgisinternal and p.prosrc ~* '(pg_notify|notify)'`,
      );
      expect(notifying.rows).toEqual([]);
      for (const { fn, body } of triggers) {
        const [row] = (await sql.query(`select prosrc from pg_proc where proname = $1`, [fn])).rows;
        expect({ fn, source: squeeze(row?.prosrc ?? '') }).toEqual({ fn, source: squeeze(`begin ${body} end;`) });
      }
    });
  });

  it("leave every index an entity declares by its statement (a partial one's predicate too) as that statement builds it (the schema diff compares those by name only)", async () => {
    await migrated(async (sql) => {
      const declared = [...db.orm.getMetadata().getAll().values()].flatMap((meta) =>
        [...(meta.indexes ?? []), ...(meta.uniques ?? [])]
          .filter((index) => typeof index.expression === 'string')
          .map((index) => ({ name: index.name as string, expression: index.expression as string })),
      );
      expect(declared.map((d) => d.name)).toContain('guest_case_business_waiting_idx');
      const definition = async (name: string) =>
        (await sql.query(`select pg_get_indexdef(to_regclass($1)) as def`, [`"${name}"`])).rows[0]?.def as string | null;
      for (const { name, expression } of declared) {
        // The entity's own statement, under another name, in a transaction undone: PostgreSQL writes both alike.
        await sql.query('begin');
        try {
          await sql.query(expression.replace(`"${name}"`, `"${name}_declared"`));
          const built = await definition(`${name}_declared`);
          expect({ name, migrated: await definition(name) }).toEqual({ name, migrated: built?.replace(`${name}_declared`, name) });
        } finally {
          await sql.query('rollback');
        }
      }
    });
  });

  it("leave the rollups' writer planning its statements once per connection (a migration that redefines it keeps that)", async () => {
    await migrated(async (sql) => {
      const { rows } = await sql.query(`select proconfig from pg_proc where proname = 'analytics_apply'`);
      expect(rows).toEqual([{ proconfig: ['plan_cache_mode=force_generic_plan'] }]);
    });
  });

  it("asks existing rules' outside recipients once (issue 48): a member's own address becomes the member, every other one waits for its confirmation", async () => {
    await migratedTo('Migration20261207150000', async (sql, fresh) => {
      await sql.query(`insert into business (id, name, created_at, updated_at) values ('bus_1', 'A', now(), now()), ('bus_2', 'B', now(), now())`);
      await sql.query(`insert into app_user (id, email, password_hash, created_at, updated_at) values ('user_1', 'Owner@Example.com', 'x', now(), now())`);
      await sql.query(
        `insert into membership (id, user_id, business_id, role, created_at, updated_at) values ('mem_1', 'user_1', 'bus_1', 'owner', now(), now())`,
      );
      const rule = (id: string, business: string, notify: unknown[]) =>
        sql.query(
          `insert into alert_rule (id, business_id, name, enabled, severity, "when", notify, created_at, updated_at) values ($1, $2, 'Low', true, 'normal', '{"maxRating": 2}', $3, now(), now())`,
          [id, business, JSON.stringify(notify)],
        );
      const chef = { channel: 'email', to: 'chef@example.com' };
      const phone = { channel: 'sms', to: '+923001234567' };
      await rule('alr_1', 'bus_1', [{ channel: 'email', to: 'owner@example.com' }, chef, phone, { role: 'manager' }]);
      await rule('alr_2', 'bus_1', [chef]);
      // Not a member of this business: outside, like anyone else.
      await rule('alr_3', 'bus_2', [{ channel: 'email', to: 'owner@example.com' }]);
      await fresh.orm.migrator.up();

      expect((await sql.query(`select id, notify from alert_rule order by id`)).rows).toEqual([
        { id: 'alr_1', notify: [{ member: 'mem_1' }, chef, phone, { role: 'manager' }] },
        { id: 'alr_2', notify: [chef] },
        { id: 'alr_3', notify: [{ channel: 'email', to: 'owner@example.com' }] },
      ]);
      const asked = (
        await sql.query(
          `select business_id, channel, address, status, token, due_at <= now() as due, sent_at from alert_recipient order by business_id, channel, address`,
        )
      ).rows;
      expect(asked).toEqual([
        {
          business_id: 'bus_1',
          channel: 'email',
          address: 'chef@example.com',
          status: 'pending',
          token: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
          due: true,
          sent_at: null,
        },
        {
          business_id: 'bus_1',
          channel: 'sms',
          address: '+923001234567',
          status: 'pending',
          token: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
          due: true,
          sent_at: null,
        },
        {
          business_id: 'bus_2',
          channel: 'email',
          address: 'owner@example.com',
          status: 'pending',
          token: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
          due: true,
          sent_at: null,
        },
      ]);
      expect(new Set(asked.map((r) => r.token)).size).toBe(3);
    });
  });

  it('renames the role admin to manager (issue 14), keeping every membership', async () => {
    await migratedTo('Migration20261123162403', async (sql, fresh) => {
      await sql.query(`insert into business (id, name, created_at, updated_at) values ('bus_1', 'B', now(), now())`);
      await sql.query(
        `insert into app_user (id, email, password_hash, created_at, updated_at) values ('user_1', 'a@example.com', 'x', now(), now()), ('user_2', 'b@example.com', 'x', now(), now())`,
      );
      await sql.query(
        `insert into membership (id, user_id, business_id, role, created_at, updated_at) values ('mem_1', 'user_1', 'bus_1', 'owner', now(), now()), ('mem_2', 'user_2', 'bus_1', 'admin', now(), now())`,
      );
      await fresh.orm.migrator.up();
      expect((await sql.query(`select id, role from membership order by id`)).rows).toEqual([
        { id: 'mem_1', role: 'owner' },
        { id: 'mem_2', role: 'manager' },
      ]);
      await expect(sql.query(`update membership set role = 'admin' where id = 'mem_2'`)).rejects.toThrow(/membership_role_check/);
    });
  });
});
