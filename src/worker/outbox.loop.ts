import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { PgListener } from '../kit/pg-listener.js';
import { IdlePoll } from './idle.poll.js';

/** A table of jobs as a runner sees it: leased in batches, each run on its own, leases given back at a stop. */
export interface OutboxJobs<J> {
  /** Leases up to `limit` due jobs to this worker (SKIP LOCKED: workers take disjoint sets). */
  claim(limit: number): Promise<J[]>;
  run(job: J): Promise<unknown>;
  /** Gives back leases claimed while stopping; without it they expire and run later. */
  release?(jobs: J[]): Promise<unknown>;
}

export interface OutboxLoopOptions {
  /** Names the loop in logs: 'feedback requests'. */
  name: string;
  /** The LISTEN channel the commits that queue its jobs notify. */
  channel: string;
  orm: MikroORM;
  logger: Logger;
  /** Jobs run at once at most. */
  concurrency: number;
  /** The safety net's poll: work falling due, notifications lost with a connection. */
  idlePollMs: number;
  /** Leases at most once per this many ms, so a burst of notifications does not become a burst of claims. */
  minClaimGapMs?: number;
}

export interface OutboxLoop {
  /** Stops claiming, lets the jobs in flight finish and gives back what was claimed but not started. */
  stop(): Promise<void>;
}

/**
 * The loop every outbox table here runs on (feedback requests, case alerts and replies, account e-mails): jobs are
 * rows leased with FOR UPDATE SKIP LOCKED, so any number of processes share the work and none loses or doubles a job.
 * A LISTEN on `channel` wakes it at the commit of what queued a job; a poll every `idlePollMs` is the safety net. A
 * table's own channel keeps the others' commits from waking it: each wake-up is a claim statement.
 */
export async function startOutboxLoop<J>(jobs: OutboxJobs<J>, options: OutboxLoopOptions): Promise<OutboxLoop> {
  const { logger, concurrency } = options;
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let wanted = true;
  const idle = new IdlePoll(options.idlePollMs);
  const nudge = () => {
    wanted = true;
    idle.wake();
  };
  // Woken at once by a notification, and after a reconnection (whatever was missed meanwhile); polled otherwise.
  const listener = new PgListener(options.orm, [options.channel], { notification: nudge, ready: nudge }, logger, `${options.name} (polling meanwhile)`);
  await listener.start();

  const start = (job: J) => {
    const p = Promise.resolve()
      .then(() => jobs.run(job))
      .catch((err) => logger.error({ err, job }, `${options.name}: a job failed; its lease expires and it runs again`))
      .then(() => {
        inFlight.delete(p);
        nudge();
      });
    inFlight.add(p);
  };

  const loop = async () => {
    let lastClaim = 0;
    while (!stopping) {
      try {
        if (idle.due()) wanted = true;
        const room = concurrency - inFlight.size;
        if (wanted && room > 0) {
          const gap = (options.minClaimGapMs ?? 0) - (Date.now() - lastClaim);
          if (gap > 0) await new Promise((r) => setTimeout(r, gap));
          wanted = false;
          lastClaim = Date.now();
          const claimed = await jobs.claim(room);
          if (stopping) await jobs.release?.(claimed);
          else for (const job of claimed) start(job);
          if (claimed.length === room) wanted = true;
        }
      } catch (err) {
        if (stopping) break;
        logger.error({ err }, `${options.name}: a worker step failed; retrying`);
        await new Promise((r) => setTimeout(r, 1_000));
      }
      if (!(wanted && inFlight.size < concurrency) && !stopping) await idle.sleep();
    }
  };
  const running = loop();

  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      idle.wake();
      await running;
      await Promise.allSettled([...inFlight]);
      await listener.stop();
    },
  };
}
