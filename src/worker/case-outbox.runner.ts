import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { channelsOf, configuredSenders } from './senders.js';
import { startOutboxLoop, type OutboxLoop } from './outbox.loop.js';
import { CaseOutboxTask, type CaseSenders, CASE_WORK_CHANNEL, nextCaseJobDue, requeueUnsentCaseJobs } from '../modules/case/index.js';
import type { Services } from '../kit/graphql/context.js';
import type { DuePoll } from './due.poll.js';

const CONCURRENCY = 8;

/**
 * Runs the case module's outbound work (alerts, escalation checks, replies to guests) from its own tables on the
 * outbox loop. `clock` is injectable for tests; `senders` default to what the configuration names.
 */
export async function startCaseOutbox(deps: {
  orm: MikroORM;
  logger: Logger;
  config: Pick<Config, 'publicUrl' | 'feedback'>;
  services: Services;
  clock?: () => Date;
  senders?: CaseSenders;
  /** The process's look at every queue (worker.runner.ts); alone, the loop looks for its own. */
  poll?: DuePoll;
}): Promise<OutboxLoop> {
  const logger = deps.logger.child({ component: 'case-outbox' });
  const senders = deps.senders ?? configuredSenders(deps.config.feedback, deps.orm);
  const requeued = await requeueUnsentCaseJobs(deps.orm.em.fork(), channelsOf(senders));
  if (requeued) logger.info({ requeued }, 'alerts and replies that found no sender are due again');
  const workerId = `${os.hostname().slice(0, 30)}:${process.pid}:case:${randomBytes(4).toString('hex')}`;
  const task = new CaseOutboxTask(deps.orm, senders, {
    publicUrl: deps.config.publicUrl,
    mailFrom: deps.config.feedback.mailFrom,
    workerId,
    clock: deps.clock ?? (() => new Date()),
    logger,
    sending: deps.services.sending,
  });
  const loop = await startOutboxLoop(task, {
    name: 'case workers',
    channel: CASE_WORK_CHANNEL,
    due: nextCaseJobDue,
    orm: deps.orm,
    logger,
    concurrency: CONCURRENCY,
    poll: deps.poll,
    clock: deps.clock,
  });
  return {
    wake: loop.wake,
    async stop() {
      await loop.stop();
      if (!deps.senders) senders.mail?.close();
    },
  };
}
