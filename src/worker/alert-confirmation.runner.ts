import { channelsOf, configuredSenders } from './senders.js';
import { startOutboxRunner, type OutboxLoop, type OutboxRunnerDeps } from './outbox.loop.js';
import { AlertConfirmationTask, ALERT_CONFIRMATIONS_CHANNEL, nextConfirmationDue, requeueUnsentConfirmations } from '../modules/alert/index.js';

const CONCURRENCY = 4;

/** Sends outside alert recipients their one confirmation (alert_recipient rows due) on the outbox loop. */
export async function startAlertConfirmations(deps: OutboxRunnerDeps): Promise<OutboxLoop> {
  const senders = configuredSenders(deps.config.feedback, deps.orm);
  return startOutboxRunner(
    { ...deps, logger: deps.logger.child({ component: 'alert-confirmations' }) },
    {
      tag: 'arc',
      requeue: {
        due: () => requeueUnsentConfirmations(deps.orm.em.fork(), channelsOf(senders)),
        said: 'alert confirmations that found no sender are due again',
      },
      task: (basics) => new AlertConfirmationTask(deps.orm, senders, { ...basics, publicUrl: deps.config.publicUrl, sending: deps.services.sending }),
      loop: { name: 'alert confirmation workers', channel: ALERT_CONFIRMATIONS_CHANNEL, due: nextConfirmationDue, concurrency: CONCURRENCY },
      close: () => senders.mail?.close(),
    },
  );
}
