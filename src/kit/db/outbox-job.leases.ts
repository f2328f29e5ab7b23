import type { EntityManager } from '@mikro-orm/core';
import { type RawBuilder, sql, type Updateable } from 'kysely';
import { db } from './db.js';
import type { SendOutcome } from '../../shared/sender.ports.js';

/** A runner's claim: up to `limit` jobs due at `now`, leased to `worker` for `leaseMs`. */
export interface LeaseClaim {
  leaseMs: number;
  worker: string;
  now: Date;
  limit: number;
}

/**
 * Leases the due jobs of an outbox table (its rows carry outbox-job.entity.ts's columns), oldest due first; SKIP
 * LOCKED, so workers take disjoint sets, and a lease run out counts as none. `only` narrows which rows are jobs.
 */
export async function claimDueJobs(em: EntityManager, table: string, q: LeaseClaim, only: RawBuilder<unknown> = sql`true`): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`
    update ${sql.table(table)} set locked_until = now() + make_interval(secs => ${q.leaseMs}::double precision / 1000), locked_by = ${q.worker}
     where id in (select id from ${sql.table(table)}
                   where due_at <= ${q.now} and (locked_until is null or locked_until < now()) and ${only}
                   order by due_at limit ${q.limit} for update skip locked)
    returning id`.execute(db(em));
  return rows.map((r) => r.id);
}

/** Gives back `worker`'s leases of these jobs (a stop): they are due again at once, for any worker. */
export async function releaseLeasedJobs(em: EntityManager, table: string, worker: string, ids: readonly string[]): Promise<void> {
  if (!ids.length) return;
  await sql`update ${sql.table(table)} set locked_until = null, locked_by = null where id = any(${ids}::text[]) and locked_by = ${worker}`.execute(db(em));
}

/**
 * One outbox table's leases, for its repository to name once: `only` narrows which rows are jobs; `Row`, the table's
 * row as the repository types it, is what `finish` may change.
 */
export function outboxLeases<Row = never>(table: string, only?: RawBuilder<unknown>) {
  return {
    claim: (em: EntityManager, q: LeaseClaim) => claimDueJobs(em, table, q, only),
    release: (em: EntityManager, worker: string, ids: readonly string[]) => releaseLeasedJobs(em, table, worker, ids),
    /**
     * Applies `change` and gives the lease back, only while `worker` holds it; a tenant table's job names its
     * `business`, which pins the statement to that business's shard.
     */
    finish: async (em: EntityManager, id: string, worker: string, change: Updateable<Row>, business?: string): Promise<void> => {
      let update = db(em)
        .updateTable(table)
        .set({ ...change, locked_until: null, locked_by: null, updated_at: sql<Date>`now()` })
        .where('id', '=', id)
        .where('locked_by', '=', worker);
      if (business !== undefined) update = update.where('business_id', '=', business);
      await update.execute();
    },
  };
}

/** How a sent job's row changes: sent, due again after `retryMs[attempts - 1]`, or failed for good. */
export interface SendSettled {
  status?: 'sent' | 'failed';
  attempts: number;
  error?: string | null;
  due_at: Date | null;
  sent_at?: Date;
}

/**
 * A job after its send: sent; or tried again while the failure may pass (not refused for good) and `retryMs` has a
 * delay for this attempt; or failed.
 */
export function settledSend(outcome: SendOutcome, attemptsBefore: number, now: Date, retryMs: readonly number[]): SendSettled {
  const attempts = attemptsBefore + 1;
  if (outcome.ok) return { status: 'sent', attempts, error: null, due_at: null, sent_at: now };
  const error = outcome.error ?? null;
  if (!outcome.permanent && attempts <= retryMs.length) return { attempts, error, due_at: new Date(now.getTime() + retryMs[attempts - 1]) };
  return { status: 'failed', attempts, error, due_at: null };
}

/** A task's claim and release of this worker's leases, as its outbox loop calls them: each in a fresh fork. */
export function workerLeases(
  leases: Pick<ReturnType<typeof outboxLeases>, 'claim' | 'release'>,
  orm: { em: { fork(): EntityManager } },
  lease: { leaseMs: number; workerId: string; clock: () => Date },
) {
  return {
    claim: (limit: number): Promise<string[]> => leases.claim(orm.em.fork(), { leaseMs: lease.leaseMs, worker: lease.workerId, now: lease.clock(), limit }),
    release: (ids: string[]) => leases.release(orm.em.fork(), lease.workerId, ids),
  };
}
