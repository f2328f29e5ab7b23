import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { channelsOf, configuredSenders } from './senders.js';
import { startOutboxLoop, type OutboxLoop } from './outbox.loop.js';
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
  const logger = deps.logger.child({ component: 'alert-confirmations' });
  const senders = configuredSenders(deps.config.feedback, deps.orm);
  const requeued = await requeueUnsentConfirmations(deps.orm.em.fork(), channelsOf(senders));
  if (requeued) logger.info({ requeued }, 'alert confirmations that found no sender are due again');
  const workerId = `${os.hostname().slice(0, 30)}:${process.pid}:arc:${randomBytes(4).toString('hex')}`;
  const task = new AlertConfirmationTask(deps.orm, senders, {
    publicUrl: deps.config.publicUrl,
    workerId,
    clock: deps.clock ?? (() => new Date()),
    logger,
    sending: deps.services.sending,
  });
  const loop = await startOutboxLoop(task, {
    name: 'alert confirmation workers',
    channel: ALERT_CONFIRMATIONS_CHANNEL,
    due: nextConfirmationDue,
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
      senders.mail?.close();
    },
  };
}
