import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { channelsOf, configuredSenders } from './senders.js';
import { startOutboxRunner, type OutboxLoop } from './outbox.loop.js';
import { AlertConfirmationTask, ALERT_CONFIRMATIONS_CHANNEL, nextConfirmationDue, requeueUnsentConfirmations } from '../modules/alert/index.js';
import type { Services } from '../kit/graphql/context.js';
import type { DuePoll } from './due.poll.js';

const CONCURRENCY = 4;

/** Sends outside alert recipients their one confirmation (alert_recipient rows due) on the outbox loop. */
export async function startAlertConfirmations(deps: {
  orm: MikroORM;
  logger: Logger;
  config: Pick<Config, 'publicUrl' | 'feedback'>;
  services: Services;
  clock?: () => Date;
  poll?: DuePoll;
}): Promise<OutboxLoop> {
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
