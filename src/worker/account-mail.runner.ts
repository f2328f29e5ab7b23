import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { configuredSenders } from './senders.js';
import type { Mailer } from '../shared/sender.ports.js';
import { AccountMailTask, ACCOUNT_MAIL_CHANNEL, nextAccountMailDue, requeueUnsentAccountMail } from '../modules/user/index.js';
import { credentialsActingFor } from '../modules/oauth/index.js';
import type { DuePoll } from './due.poll.js';
import type { Services } from '../kit/graphql/context.js';
import { startOutboxLoop, type OutboxLoop } from './outbox.loop.js';

const CONCURRENCY = 4;

/** Sends account e-mails (verification, password reset, invitations) from the account_mail table on the outbox loop. */
export async function startAccountMail(deps: {
  orm: MikroORM;
  logger: Logger;
  config: Pick<Config, 'publicUrl' | 'feedback'>;
  services: Services;
  mailer?: Mailer;
  clock?: () => Date;
  poll?: DuePoll;
}): Promise<OutboxLoop> {
  const logger = deps.logger.child({ component: 'account-mail' });
  const mailer = deps.mailer ?? configuredSenders(deps.config.feedback, deps.orm).mail;
  // Those that failed for want of a sender go now, through the queue, while still valid.
  const requeued = mailer ? await requeueUnsentAccountMail(deps.orm.em.fork()) : 0;
  if (requeued) logger.info({ requeued }, 'account mails that found no sender are due again');
  const workerId = `${os.hostname().slice(0, 30)}:${process.pid}:acct:${randomBytes(4).toString('hex')}`;
  const task = new AccountMailTask(deps.orm, mailer, {
    publicUrl: deps.config.publicUrl,
    workerId,
    clock: deps.clock ?? (() => new Date()),
    logger,
    limits: deps.services.sending.settings,
    credentialsOf: credentialsActingFor,
  });
  const loop = await startOutboxLoop(task, {
    name: 'account mail workers',
    channel: ACCOUNT_MAIL_CHANNEL,
    due: nextAccountMailDue,
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
      if (!deps.mailer) mailer?.close();
    },
  };
}
