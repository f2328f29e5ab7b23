import { channelsOf, configuredSenders } from './senders.js';
import { startOutboxRunner, type OutboxLoop, type OutboxRunnerDeps } from './outbox.loop.js';
import { CaseOutboxTask, type CaseSenders, CASE_WORK_CHANNEL, nextCaseJobDue, requeueUnsentCaseJobs } from '../modules/case/index.js';

const CONCURRENCY = 8;

/**
 * Runs the case module's outbound work (alerts, escalation checks, replies to guests) from its own tables on the
 * outbox loop. `clock` is injectable for tests; `senders` default to what the configuration names.
 */
export async function startCaseOutbox(deps: OutboxRunnerDeps & { senders?: CaseSenders }): Promise<OutboxLoop> {
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
