import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 38 item 4, tables that age out: `event` and `webhook_delivery` become partitioned by range of their
 * time-ordered ids, a partition a week (the workers create them ahead and drop them past their retention:
 * src/kit/db/time-partitions.ts), online:
 *
 * 1. each table gets `CHECK (id < B) NOT VALID`, B a week boundary at least a day ahead (a moment's lock, no scan);
 * 2. the check is validated: a scan that lets reads and writes go on;
 * 3. in one short transaction (its statements sent at once), each table is renamed `<table>_legacy`, a partitioned
 *    table takes its name, columns, indexes, keys and triggers (as the catalog has them, whatever migration changed
 *    them last), and the old table is attached as the partition of every id below B: the validated check proves its
 *    bound, so the attach does not scan it, and its indexes become the new ones' partitions;
 * 4. the weeks from B to a fortnight ahead get partitions of their own, each created then attached.
 * The legacy partition then ages out like any other.
 *
 * A partitioned table's unique keys must include the id, so what no longer fits stays on the legacy partition only:
 * the deliveries' unique (event, webhook) (a delivery's id now carries it), and the deliveries' foreign key to the
 * event goes (webhook-delivery.entity.ts says why), with the index on created_at that only the old purge used.
 * Not transactional: step 2 must not run under step 3's lock (migrations run one transaction each:
 * src/db/orm.config.ts).
 */
export class Migration20261127220000 extends Migration {
  override name = 'Migration20261127220000';

  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    if (!(await this.partitioned('event'))) await this.partition();
    // Step 4, apart from the swap, as the workers' maintenance does it (create, then attach: reads and writes go on).
    for (const table of TABLES) {
      const bound = await this.legacyEnd(table);
      for (let from = bound ?? Infinity; from < Date.now() + AHEAD; from = nextBoundary(from)) {
        const name = partitionName(table.name, from);
        await this.retrying(`create ${name}`, async (run) => {
          await run(`select pg_advisory_xact_lock(${LOCK_CLASS}, hashtext('${table.name}'))`);
          if ((await run(`select 1 from pg_class where relname = '${name}' and relnamespace = current_schema()::regnamespace`)).length) return;
          await run(`create table "${name}" (like "${table.name}" including defaults)`);
          await run(`alter table "${table.name}" attach partition "${name}" for values from ('${idAt(table.prefix, from)}') to ('${idAt(table.prefix, nextBoundary(from))}')`);
        });
      }
    }
  }

  /** Steps 1 to 3, once. */
  private async partition(): Promise<void> {
    // An interrupted run's bound is kept only while still ahead: a check with a past bound would refuse new rows.
    let bound = await this.legacyBound();
    if (bound !== undefined && bound < Date.now() + HOUR) {
      await this.dropBounds();
      bound = undefined;
    }
    bound ??= nextBoundary(Date.now() + DAY);
    try {
      for (const table of TABLES) {
        await this.retrying(`add ${table.name}'s bound`, async (run) => {
          await run(`select pg_advisory_xact_lock(${LOCK_CLASS}, hashtext('${table.name}'))`);
          if ((await this.partitioned(table.name, run)) || (await hasBound(run, table.name))) return;
          await run(`alter table "${table.name}" add constraint "${table.name}_legacy_bound" check (id < '${idAt(table.prefix, bound)}') not valid`);
        });
      }
      for (const table of TABLES) {
        if (await hasBound((sql) => this.execute(sql), table.name)) await this.execute(`alter table "${table.name}" validate constraint "${table.name}_legacy_bound"`);
      }
      await this.retrying('swap in the partitioned tables', async (run) => {
        // Events first, as every writer of both takes them (the fan-out locks events, then inserts deliveries).
        await run(`lock table "event", "webhook_delivery" in access exclusive mode`);
        if (await this.partitioned('event', run)) return;
        const statements: string[] = [];
        for (const table of TABLES) statements.push(...(await swap(run, table, bound)));
        // One round trip: the tables stay locked for as short a time as the statements take.
        await run(statements.join(';\n'));
      });
    } catch (err) {
      await this.dropBounds().catch(() => {});
      throw err;
    }
  }

  /** Where the legacy partition of `table` ends, from the catalog (none once it has aged out). */
  private async legacyEnd(table: Table): Promise<number | undefined> {
    const [row] = await this.execute(`select pg_get_expr(relpartbound, oid) as bound from pg_class where oid = to_regclass('${table.name}_legacy')`);
    const time = row && /TO \('[a-z]+_([0-9A-Z]{10})'\)/.exec(row.bound as string)?.[1];
    return time ? decodeTime(time) : undefined;
  }

  override async down(): Promise<void> {
    await this.retrying('rebuild the plain tables', async (run) => {
      await run(`lock table "event", "webhook_delivery" in access exclusive mode`);
      for (const table of TABLES) {
        const copy = await definitions(run, table.name);
        await run(`create table "${table.name}_plain" (like "${table.name}" including defaults)`);
        await run(`insert into "${table.name}_plain" select * from "${table.name}"`);
        await run(`drop table "${table.name}" cascade`);
        await run(`alter table "${table.name}_plain" rename to "${table.name}"`);
        for (const statement of [...copy.constraints, ...copy.indexes, ...copy.triggers]) await run(statement);
      }
      // What the partitioned tables could not hold.
      await run(`delete from "webhook_delivery" d where not exists (select 1 from "event" e where e.id = d.event_id)`);
      await run(`alter table "webhook_delivery" add constraint "webhook_delivery_event_webhook_unique" unique ("event_id", "webhook_id")`);
      await run(`create index "webhook_delivery_created_idx" on "webhook_delivery" ("created_at")`);
      await run(`alter table "webhook_delivery" add constraint "webhook_delivery_event_id_foreign" foreign key ("event_id") references "event" ("id") on delete cascade`);
    }, 'no');
  }

  /** Whether `table` is partitioned already (a run that got through its swap). */
  private async partitioned(table: string, run: Run = (sql) => this.execute(sql)): Promise<boolean> {
    const [row] = await run(`select relkind from pg_class where oid = to_regclass('${table}')`);
    return row?.relkind === 'p';
  }

  /** The bound an earlier, interrupted run chose, if it got as far as adding it. */
  private async legacyBound(): Promise<number | undefined> {
    const [row] = await this.execute(`select pg_get_constraintdef(oid) as def from pg_constraint where conname = 'event_legacy_bound' and conrelid = to_regclass('event')`);
    const time = row && /'evt_([0-9A-Z]{10})'/.exec(row.def as string)?.[1];
    return time ? decodeTime(time) : undefined;
  }

  /** Takes the bounds off tables not yet swapped. */
  private async dropBounds(): Promise<void> {
    for (const table of TABLES) {
      await this.retrying(`drop ${table.name}'s bound`, async (run) => {
        if (!(await this.partitioned(table.name, run))) await run(`alter table "${table.name}" drop constraint if exists "${table.name}_legacy_bound"`);
      });
    }
  }

  /**
   * `work` in a transaction that waits at most LOCK_TIMEOUT for each lock (a long transaction holding a table would
   * otherwise queue every statement behind this one's wait), tried again a while later when it waited in vain.
   */
  private async retrying(what: string, work: (run: Run) => Promise<void>, lockTimeout = LOCK_TIMEOUT): Promise<void> {
    const connection = this.driver.getConnection();
    for (let attempt = 1; ; attempt++) {
      try {
        await connection.transactional(async (trx) => {
          const run: Run = (sql) => this.driver.execute(sql, [], 'all', trx) as Promise<Array<Record<string, unknown>>>;
          if (lockTimeout !== 'no') await run(`set local lock_timeout = '${lockTimeout}'`);
          await work(run);
        });
        return;
      } catch (err) {
        const lockWait = /lock timeout|canceling statement due to lock/i.test((err as Error).message);
        if (!lockWait || attempt >= ATTEMPTS) throw new Error(`${what}: ${(err as Error).message}${lockWait ? ` (${ATTEMPTS} tries; a long transaction holds the table)` : ''}`, { cause: err });
        await new Promise((resolve) => setTimeout(resolve, Math.min(attempt * 200, 2_000)));
      }
    }
  }
}

type Run = (sql: string) => Promise<Array<Record<string, unknown>>>;

interface Table {
  name: string;
  prefix: string;
  /** Constraints and indexes left on the legacy partition only (their names), and those dropped altogether. */
  legacyOnly: string[];
  dropped: string[];
}

const TABLES: Table[] = [
  { name: 'event', prefix: 'evt', legacyOnly: [], dropped: [] },
  { name: 'webhook_delivery', prefix: 'whd', legacyOnly: ['webhook_delivery_event_webhook_unique'], dropped: ['webhook_delivery_event_id_foreign', 'webhook_delivery_created_idx'] },
];

const LOCK_CLASS = 1164;
const LOCK_TIMEOUT = '500ms';
const ATTEMPTS = 30;
const DAY = 86_400_000;
const HOUR = 3_600_000;
const WEEK = 7 * DAY;
/** Weeks start on Mondays 00:00 UTC (1970-01-05 was one); partitions exist a fortnight ahead. */
const GRID_ORIGIN = 4 * DAY;
const AHEAD = 14 * DAY;

// Frozen here, as the code had them when this was written (src/shared/id.ts, src/kit/db/time-partitions.ts).
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}
const decodeTime = (time: string) => [...time].reduce((ms, char) => ms * 32 + ALPHABET.indexOf(char), 0);
const idAt = (prefix: string, ms: number) => `${prefix}_${encodeTime(ms)}`;
const nextBoundary = (ms: number) => GRID_ORIGIN + (Math.floor((ms - GRID_ORIGIN) / WEEK) + 1) * WEEK;
const partitionName = (table: string, from: number) => `${table}_${new Date(from).toISOString().slice(0, 10).replaceAll('-', '')}`;

const hasBound = async (run: Run, table: string) =>
  (await run(`select 1 from pg_constraint where conname = '${table}_legacy_bound' and conrelid = '"${table}"'::regclass`)).length > 0;

/** The statements that give a table of this name its constraints, indexes and triggers, as the catalog has them now. */
async function definitions(run: Run, table: string, skip: string[] = []) {
  const constraints = await run(
    `select conname, pg_get_constraintdef(oid) as def from pg_constraint
      where conrelid = '"${table}"'::regclass and contype in ('p', 'u', 'f', 'c') and conname <> '${table}_legacy_bound' order by contype desc, conname`,
  );
  const indexes = await run(
    `select i.relname, pg_get_indexdef(i.oid) as def from pg_index x join pg_class i on i.oid = x.indexrelid
      where x.indrelid = '"${table}"'::regclass and not exists (select 1 from pg_constraint c where c.conindid = i.oid) order by i.relname`,
  );
  const triggers = await run(`select tgname, pg_get_triggerdef(oid) as def from pg_trigger where tgrelid = '"${table}"'::regclass and not tgisinternal order by tgname`);
  return {
    constraints: constraints.filter((c) => !skip.includes(c.conname as string)).map((c) => `alter table "${table}" add constraint "${c.conname}" ${c.def}`),
    indexes: indexes.filter((i) => !skip.includes(i.relname as string)).map((i) => i.def as string),
    triggers: triggers.map((t) => t.def as string),
    names: { indexes: indexes.map((i) => i.relname as string), triggers: triggers.map((t) => t.tgname as string), constraints: constraints.map((c) => c.conname as string) },
  };
}

/** Step 3's statements for one table, read from the catalog under the lock of both. */
async function swap(run: Run, table: Table, bound: number): Promise<string[]> {
  const legacy = `${table.name}_legacy`;
  const copy = await definitions(run, table.name, [...table.legacyOnly, ...table.dropped]);
  const constraintIndexes = (await run(`select conname from pg_constraint where conrelid = '"${table.name}"'::regclass and contype in ('p', 'u')`)).map((r) => r.conname as string);
  return [
    ...table.dropped.flatMap((name) =>
      copy.names.constraints.includes(name) ? [`alter table "${table.name}" drop constraint "${name}"`] : copy.names.indexes.includes(name) ? [`drop index "${name}"`] : [],
    ),
    `alter table "${table.name}" rename to "${legacy}"`,
    // Index names are the schema's: the legacy partition's give theirs up to the new table's.
    ...[...copy.names.indexes, ...constraintIndexes]
      .filter((name) => !table.dropped.includes(name))
      .map((name) => `alter index "${name}" rename to "${legacy}${name.slice(table.name.length)}"`),
    ...copy.names.triggers.map((trigger) => `drop trigger "${trigger}" on "${legacy}"`),
    // The statements read while the table had its name now rebuild it on the partitioned table that takes it.
    `create table "${table.name}" (like "${legacy}" including defaults) partition by range (id)`,
    ...copy.constraints,
    ...copy.indexes,
    ...copy.triggers,
    `alter table "${table.name}" attach partition "${legacy}" for values from (minvalue) to ('${idAt(table.prefix, bound)}')`,
    `alter table "${legacy}" drop constraint "${table.name}_legacy_bound"`,
  ];
}
