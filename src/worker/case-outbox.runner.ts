import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { channelsOf, configuredSenders } from './senders.js';
import { startOutboxRunner, type OutboxLoop } from './outbox.loop.js';
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
  const senders = deps.senders ?? configuredSenders(deps.config.feedback, deps.orm);
  return startOutboxRunner(
    { ...deps, logger: deps.logger.child({ component: 'case-outbox' }) },
    {
      tag: 'case',
      requeue: { due: () => requeueUnsentCaseJobs(deps.orm.em.fork(), channelsOf(senders)), said: 'alerts and replies that found no sender are due again' },
      task: (basics) =>
        new CaseOutboxTask(deps.orm, senders, {
          ...basics,
          publicUrl: deps.config.publicUrl,
          mailFrom: deps.config.feedback.mailFrom,
          sending: deps.services.sending,
        }),
      loop: { name: 'case workers', channel: CASE_WORK_CHANNEL, due: nextCaseJobDue, concurrency: CONCURRENCY },
      close: deps.senders ? undefined : () => senders.mail?.close(),
    },
  );
}
