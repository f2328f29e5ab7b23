import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { PgListener } from '../kit/pg-listener.js';
import { IdlePoll } from './idle.poll.js';
import { feedbackSenders } from './feedback-request.runner.js';
import { CaseOutboxTask, type CaseSenders } from '../modules/case/case-outbox.task.js';
import type { CaseJob } from '../modules/case/case.repo.js';
import { WEBHOOK_WORK_CHANNEL } from '../modules/event/event.signal.js';

export interface CaseOutboxWorkers {
  stop(): Promise<void>;
}

/** The safety net's poll: retries and escalation checks falling due, notifications lost with a connection. */
const IDLE_POLL_MS = 1_000;
const CONCURRENCY = 8;

/**
 * Runs the case module's outbound work (alerts, escalation checks, replies to guests) from its own tables, the same
 * outbox design as feedback requests: rows leased with FOR UPDATE SKIP LOCKED, so any number of processes share the
 * work and none loses or doubles a message. Woken at the commit of what queued them (a NOTIFY on webhook_work), else
 * by the poll. `clock` is injectable for tests; `senders` default to what the configuration names.
 */
export async function startCaseOutbox(deps: {
  orm: MikroORM;
  logger: Logger;
  config: Pick<Config, 'publicUrl' | 'feedback'>;
  clock?: () => Date;
  senders?: CaseSenders;
}): Promise<CaseOutboxWorkers> {
  const logger = deps.logger.child({ component: 'case-outbox' });
  const senders = deps.senders ?? feedbackSenders(deps.config.feedback);
  const workerId = `${os.hostname().slice(0, 30)}:${process.pid}:case:${randomBytes(4).toString('hex')}`;
  const task = new CaseOutboxTask(deps.orm, senders, {
    publicUrl: deps.config.publicUrl,
    mailFrom: deps.config.feedback.mailFrom,
    workerId,
    clock: deps.clock ?? (() => new Date()),
    logger,
  });
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let wanted = true;
  const idle = new IdlePoll(IDLE_POLL_MS);
  const nudge = () => {
    wanted = true;
    idle.wake();
  };
  const listener = new PgListener(deps.orm, [WEBHOOK_WORK_CHANNEL], { notification: nudge, ready: nudge }, logger, 'case workers (polling meanwhile)');
  await listener.start();

  const start = (job: CaseJob) => {
    const p = task
      .run(job)
      .catch((err) => logger.error({ err, job: job.id }, 'case job failed; its lease expires and it runs again'))
      .finally(() => {
        inFlight.delete(p);
        nudge();
      });
    inFlight.add(p);
  };

  const loop = async () => {
    while (!stopping) {
      try {
        if (idle.due()) wanted = true;
        const room = CONCURRENCY - inFlight.size;
        if (wanted && room > 0) {
          wanted = false;
          const jobs = await task.claim(room);
          // Claimed while stopping: given back at once rather than run.
          if (stopping) await task.release(jobs);
          else for (const job of jobs) start(job);
          if (jobs.length === room) wanted = true;
        }
      } catch (err) {
        if (stopping) break;
        logger.error({ err }, 'case worker step failed; retrying');
        await new Promise((r) => setTimeout(r, 1_000));
      }
      if (!(wanted && inFlight.size < CONCURRENCY) && !stopping) await idle.sleep();
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
      if (!deps.senders) senders.mail?.close();
      await listener.stop();
    },
  };
}
