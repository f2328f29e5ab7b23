import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { RawBuilder } from 'kysely';
import type { Logger } from 'pino';
import { PgListener } from '../kit/signals/pg-listener.js';
import { DueClock, DuePoll, Sleeper } from './due.poll.js';
import type { Config } from '../config.js';
import type { Services } from '../kit/graphql/context.js';

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
  /** The LISTEN channel the commits that queue its jobs notify (kit/signals/signals.ts), with the due time when it is later. */
  channel: string;
  /** The part of the look at every queue that answers when this table's first job falls due (due.poll.ts). */
  due: RawBuilder<Date | null>;
  orm: MikroORM;
  logger: Logger;
  /** Jobs run at once at most. */
  concurrency: number;
  /** Leases at most once per this many ms, so a burst of notifications does not become a burst of claims. */
  minClaimGapMs?: number;
  /** The process's look at every queue; without one the loop looks for its table alone. */
  poll?: DuePoll;
  /** The clock its claims compare due times with (tests fix it). */
  clock?: () => Date;
}

export interface OutboxLoop {
  /** Stops claiming, lets the jobs in flight finish and gives back what was claimed but not started. */
  stop(): Promise<void>;
  /** Claims what is due now (a test that moved its clock says so). */
  wake(): void;
}

/**
 * The loop every outbox table here runs on (feedback requests, case alerts and replies, account e-mails): jobs are
 * rows leased with FOR UPDATE SKIP LOCKED, so any number of processes share the work and none loses or doubles a job.
 * Idle, it sends nothing: it claims when a notification on `channel` says a job was queued (at its commit, in any
 * process), when a job's due time comes (told by the notification or by the look at every queue), and when the look
 * finds work nobody told of. A table's own channel keeps the others' commits from waking it.
 */
async function startOutboxLoop<J>(jobs: OutboxJobs<J>, options: OutboxLoopOptions): Promise<OutboxLoop> {
  const { logger, concurrency } = options;
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  const sleeper = new Sleeper();
  const now = options.clock ? () => options.clock!().getTime() : Date.now;
  const due = new DueClock(sleeper, now, { ms: options.minClaimGapMs ?? 0 });
  const ownPoll = options.poll ? undefined : new DuePoll(options.orm, logger);
  const poll = options.poll ?? ownPoll!;
  poll.add(options.due, due);
  // Each line of a payload is a job queued: '' due now, else its due time (ms since the epoch).
  const heard = (payload: string) => {
    for (const line of payload.split('\n')) {
      const at = Number(line);
      if (line && Number.isFinite(at)) due.dueAt(at);
      else due.wake();
    }
  };
  // After a reconnection, what was notified meanwhile is lost: the look finds it.
  const listener = new PgListener(
    options.orm,
    [options.channel],
    { notification: (_, payload) => heard(payload), ready: () => poll.soon() },
    logger,
    `${options.name} (the safety poll finds work meanwhile)`,
  );
  await listener.start();
  ownPoll?.start();

  const start = (job: J) => {
    const p = Promise.resolve()
      .then(() => jobs.run(job))
      .catch((err) => logger.error({ err, job }, `${options.name}: a job failed; its lease expires and it runs again`))
      .then(() => {
        inFlight.delete(p);
        // A job may have scheduled its next step (a retry, a reminder): the look tells when.
        poll.soon();
        sleeper.poke();
      });
    inFlight.add(p);
  };

  const loop = async () => {
    while (!stopping) {
      const room = concurrency - inFlight.size;
      try {
        if (room > 0 && due.take()) {
          const claimed = await jobs.claim(room);
          if (stopping) await jobs.release?.(claimed);
          else for (const job of claimed) start(job);
          due.claimed(claimed.length, room);
          continue;
        }
      } catch (err) {
        if (stopping) break;
        logger.error({ err }, `${options.name}: a worker step failed; retrying`);
        await new Promise((r) => setTimeout(r, 1_000));
        due.failed();
        continue;
      }
      // No room: until a job ends. Room: until work is due.
      if (!stopping) await sleeper.sleep(room > 0 ? due.idleFor() : Infinity);
    }
  };
  const running = loop();

  return {
    wake: () => due.wake(),
    async stop() {
      if (stopping) return;
      stopping = true;
      ownPoll?.stop();
      sleeper.poke();
      await running;
      await Promise.allSettled([...inFlight]);
      await listener.stop();
    },
  };
}

/** What worker.runner.ts gives each outbox runner; tests start one alone, with their own clock. */
export interface OutboxRunnerDeps {
  orm: MikroORM;
  logger: Logger;
  config: Pick<Config, 'publicUrl' | 'surveyUrl' | 'feedback'>;
  services: Services;
  clock?: () => Date;
  /** The process's look at every queue (worker.runner.ts); alone, the loop looks for its own. */
  poll?: DuePoll;
}

/** What a module's outbox task is built with: the name its leases carry, its clock and its log. */
export interface OutboxTaskBasics {
  workerId: string;
  clock: () => Date;
  logger: Logger;
}

/** A lease holder's name: the host and process (who to look at when a lease lingers), a tag per table, and randomness. */
export function workerIdOf(tag?: string): string {
  return [os.hostname().slice(0, 30), process.pid, tag, randomBytes(4).toString('hex')].filter((p) => p !== undefined).join(':');
}

/**
 * Runs one module's outbox task on the loop, the way every runner here does: jobs that found no sender are made due
 * again first, the task is built with its worker id, and `close` (a sender the runner opened) runs once the loop stopped.
 */
export async function startOutboxRunner<J>(
  deps: Pick<OutboxRunnerDeps, 'orm' | 'logger' | 'clock' | 'poll'>,
  runner: {
    /** Names this table in the worker id. */
    tag: string;
    /** Makes due again the jobs that failed for want of a sender, and what the log says when there were any. */
    requeue?: { due: () => Promise<number>; said: string };
    task: (basics: OutboxTaskBasics) => OutboxJobs<J>;
    loop: Pick<OutboxLoopOptions, 'name' | 'channel' | 'due' | 'concurrency' | 'minClaimGapMs'>;
    close?: () => void;
  },
): Promise<OutboxLoop> {
  const { orm, logger, clock, poll } = deps;
  const requeued = runner.requeue ? await runner.requeue.due() : 0;
  if (requeued) logger.info({ requeued }, runner.requeue!.said);
  const task = runner.task({ workerId: workerIdOf(runner.tag), clock: clock ?? (() => new Date()), logger });
  const loop = await startOutboxLoop(task, { ...runner.loop, orm, logger, poll, clock });
  const close = runner.close;
  if (!close) return loop;
  return {
    wake: loop.wake,
    async stop() {
      await loop.stop();
      close();
    },
  };
}
