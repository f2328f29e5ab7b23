import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { idAt, idTime, type IdKind } from '../../shared/id.js';
import { db, inTransaction } from './db.js';

/**
 * Tables that age out: partitioned by range of their time-ordered id (PostgreSQL's declarative partitioning), a
 * partition per week, created ahead of time and dropped whole once its newest possible row is past the retention.
 * `maintainPartitions` does both; the workers run it at start and hourly (src/worker/partition.runner.ts).
 */
export interface TimePartitioning {
  table: string;
  /** The kind of the table's ids, whose time is the range key. */
  kind: IdKind;
  retentionDays: number;
  /**
   * A table whose rows this table's rows refer to, by an id made at the same time (a delivery's id carries its
   * event's time): each partition of `refersTo` stays while a partition of this table may still point into it.
   */
  refersTo?: string;
  /** Whether a partition past its retention must stay for now (its rows still being worked on). */
  stillNeeded?: (em: EntityManager, partition: string) => Promise<boolean>;
}

export interface TimePartition {
  name: string;
  /** Its range of id times, ms since the epoch; `from` null for the partition that starts at MINVALUE. */
  from: number | null;
  to: number;
}

const DAY_MS = 86_400_000;
const PARTITION_WIDTH_MS = 7 * DAY_MS;
/** Partitions exist at least this far ahead: a fortnight of the maintenance failing before an insert would. */
export const PARTITIONS_AHEAD_MS = 14 * DAY_MS;
/** Weeks start on Mondays, 00:00 UTC (1970-01-05 was one). */
const GRID_ORIGIN_MS = 4 * DAY_MS;
/**
 * How long a partition's DDL waits for a lock before it gives up until the next run: while it waits, the statements
 * queued behind it wait too (dropping a partition locks its table for a moment).
 */
const LOCK_TIMEOUT = '500ms';
/** The advisory lock class (with hashtext(table) as its key) that makes processes maintain a table one at a time. */
const PARTITIONS_LOCK_CLASS = 1164;

/** The first week boundary strictly after `ms`. */
function nextBoundary(ms: number): number {
  return GRID_ORIGIN_MS + (Math.floor((ms - GRID_ORIGIN_MS) / PARTITION_WIDTH_MS) + 1) * PARTITION_WIDTH_MS;
}

/** `event_20261130`: the table and the UTC day its partition starts. */
function partitionName(table: string, from: number): string {
  return `${table}_${new Date(from).toISOString().slice(0, 10).replaceAll('-', '')}`;
}

const BOUND = /^FOR VALUES FROM \((?:MINVALUE|'([^']*)')\) TO \('([^']*)'\)$/;

/** The table's partitions from the catalog, oldest first. */
export async function timePartitions(em: EntityManager, table: string): Promise<TimePartition[]> {
  const { rows } = await sql<{ name: string; bound: string | null }>`
    select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
      from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = to_regclass(${table})`.execute(db(em));
  const partitions: TimePartition[] = [];
  for (const row of rows) {
    if (row.bound === null) continue; // dropped by another process as this was read
    const m = BOUND.exec(row.bound);
    const to = m && idTime(m[2]);
    if (to == null) throw new Error(`partition ${row.name} of ${table} has a bound that is not a time of its ids: ${row.bound}`);
    partitions.push({ name: row.name, from: m![1] === undefined ? null : (idTime(m![1]) ?? null), to });
  }
  return partitions.sort((a, b) => a.to - b.to);
}

/**
 * One partition's change, alone in its transaction, after the table's advisory lock: processes take turns, a turn
 * waited for as long as it takes (only the DDL's own locks are bounded by LOCK_TIMEOUT).
 */
function underTableLock(em: EntityManager, table: string, change: (tx: EntityManager) => Promise<void>) {
  return inTransaction(em, async (tx) => {
    await sql`select pg_advisory_xact_lock(${PARTITIONS_LOCK_CLASS}, hashtext(${table}))`.execute(db(tx));
    await sql`select set_config('lock_timeout', ${LOCK_TIMEOUT}, true)`.execute(db(tx));
    await change(tx);
  });
}

/**
 * Read from pg_class with the statement's snapshot, not through to_regclass: after waiting for another process's turn,
 * this backend's catalog cache may not have heard of the table that process just created or dropped.
 */
const exists = async (em: EntityManager, name: string) =>
  (
    await sql<{
      found: boolean;
    }>`select exists (select 1 from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relname = ${name} and n.nspname = current_schema()) as found`.execute(
      db(em),
    )
  ).rows[0].found;

/**
 * Creates the partition for [from, to) unless there is one by its name. Created apart and attached, so the table
 * itself is locked only SHARE UPDATE EXCLUSIVE (reads and writes go on); the new partition is empty, so the attach
 * has nothing to check.
 */
async function createPartition(em: EntityManager, spec: TimePartitioning, from: number, to: number): Promise<string | undefined> {
  const name = partitionName(spec.table, from);
  let created = false;
  await underTableLock(em, spec.table, async (tx) => {
    if (await exists(tx, name)) return;
    await sql`create table ${sql.id(name)} (like ${sql.id(spec.table)} including defaults)`.execute(db(tx));
    await sql`alter table ${sql.id(spec.table)} attach partition ${sql.id(name)} for values from (${sql.lit(idAt(spec.kind, from))}) to (${sql.lit(idAt(spec.kind, to))})`.execute(
      db(tx),
    );
    created = true;
  });
  return created ? name : undefined;
}

/** Drops the partition unless it is still needed (the reason, then) or gone already (another process's turn). */
async function dropPartition(
  em: EntityManager,
  spec: TimePartitioning,
  referring: TimePartitioning[],
  partition: TimePartition,
): Promise<'dropped' | 'gone' | { reason: string }> {
  let outcome: 'dropped' | 'gone' | { reason: string } = 'gone';
  await underTableLock(em, spec.table, async (tx) => {
    if (!(await exists(tx, partition.name))) return;
    const reason = await whyKeep(tx, spec, referring, partition);
    if (reason) {
      outcome = { reason };
      return;
    }
    await sql`drop table ${sql.id(partition.name)}`.execute(db(tx));
    outcome = 'dropped';
  });
  return outcome;
}

export interface MaintenanceOutcome {
  created: string[];
  dropped: string[];
  /** Partitioned tables whose planner statistics were refreshed. */
  analyzed: string[];
  /** Partitions past their retention that stay for now, and why. */
  kept: Array<{ name: string; reason: string }>;
}

/**
 * Brings each table's partitions to what `now` asks: partitions up to PARTITIONS_AHEAD_MS ahead, contiguous from the
 * newest one (or from this week's start for a table with none), and none whose rows are all older than its retention,
 * unless still needed. Safe to run in several processes at once: each change takes the table's advisory lock and
 * checks again; the DDL gives up after LOCK_TIMEOUT and the next run tries again.
 */
export async function maintainPartitions(em: EntityManager, specs: TimePartitioning[], now = Date.now()): Promise<MaintenanceOutcome> {
  const outcome: MaintenanceOutcome = { created: [], dropped: [], analyzed: [], kept: [] };
  for (const spec of specs) {
    const partitions = await timePartitions(em, spec.table);
    let from = partitions.length ? partitions[partitions.length - 1].to : nextBoundary(now) - PARTITION_WIDTH_MS;
    while (from < now + PARTITIONS_AHEAD_MS) {
      const to = nextBoundary(from);
      const name = await createPartition(em, spec, from, to);
      if (name) outcome.created.push(name);
      from = to;
    }
  }
  // Oldest first, referring tables before the tables they refer to.
  const order = [...specs].sort((a, b) => Number(!a.refersTo) - Number(!b.refersTo));
  for (const spec of order) {
    const cutoff = now - spec.retentionDays * DAY_MS;
    const referring = specs.filter((s) => s.refersTo === spec.table);
    for (const partition of await timePartitions(em, spec.table)) {
      if (partition.to > cutoff) break;
      const result = await dropPartition(em, spec, referring, partition);
      if (result === 'dropped') outcome.dropped.push(partition.name);
      else if (result !== 'gone') {
        outcome.kept.push({ name: partition.name, reason: result.reason });
        break;
      }
    }
  }
  outcome.analyzed = await refreshStatistics(em, specs);
  return outcome;
}

/**
 * Autovacuum analyzes each partition but never a partitioned table itself, and without the parent's statistics, or
 * with statistics taken when it was far smaller, the planner misjudges every statement that spans partitions (the
 * delivery claim turned to sequential scans). So the parent is analyzed, one process at a time, when the rows its
 * partitions hold now (their live counts, kept by PostgreSQL as rows come and go) differ from what its last ANALYZE saw
 * by more than a fifth (and STATS_SLACK_ROWS), or when that was more than a day ago.
 */
const STATS_SLACK_ROWS = 1_000;

export async function refreshStatistics(em: EntityManager, specs: TimePartitioning[]): Promise<string[]> {
  const analyzed: string[] = [];
  for (const { table } of specs) {
    // Looked at without the lock first: most looks find the statistics fresh, and cost one statement.
    if (!(await statisticsStale(em, table))) continue;
    await underTableLock(em, table, async (tx) => {
      if (!(await statisticsStale(tx, table))) return; // another process analyzed it meanwhile
      await sql`select set_config('lock_timeout', '0', true)`.execute(db(tx));
      await sql.raw(`analyze "${table}"`).execute(db(tx));
      // Its last_analyze is then visible to the other processes at this commit, not a second or so later.
      await sql`select pg_stat_force_next_flush()`.execute(db(tx));
      analyzed.push(table);
    });
  }
  return analyzed;
}

async function statisticsStale(em: EntityManager, table: string): Promise<boolean> {
  const { rows } = await sql<{ stale: boolean }>`
    select s.last_analyze is null or s.last_analyze < now() - interval '1 day'
        or abs(c.reltuples - coalesce(sum(l.n_live_tup), 0)) > greatest(c.reltuples, 0) / 5 + ${STATS_SLACK_ROWS} as stale
    from pg_class c
    join pg_stat_user_tables s on s.relid = c.oid
    left join pg_inherits i on i.inhparent = c.oid
    left join pg_stat_user_tables l on l.relid = i.inhrelid
    where c.oid = ${table}::regclass
    group by c.reltuples, s.last_analyze`.execute(db(em));
  return !!rows[0]?.stale;
}

async function whyKeep(em: EntityManager, spec: TimePartitioning, referring: TimePartitioning[], partition: TimePartition): Promise<string | undefined> {
  for (const other of referring) {
    const oldest = (await timePartitions(em, other.table))[0];
    // Its rows refer to rows made no later than their own ids' time: while it starts before this one ends, it may point here.
    if (oldest && (oldest.from ?? -Infinity) < partition.to) return `${other.table} partition ${oldest.name} may refer to its rows`;
  }
  if (spec.stillNeeded && (await spec.stillNeeded(em, partition.name))) return 'some of its rows are still being worked on';
  return undefined;
}
