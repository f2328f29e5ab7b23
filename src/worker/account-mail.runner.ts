import { configuredSenders } from './senders.js';
import type { Mailer } from '../shared/sender.ports.js';
import { AccountMailTask, ACCOUNT_MAIL_CHANNEL, nextAccountMailDue, requeueUnsentAccountMail } from '../modules/user/index.js';
import { credentialsActingFor } from '../modules/oauth/index.js';
import { startOutboxRunner, type OutboxLoop, type OutboxRunnerDeps } from './outbox.loop.js';

const CONCURRENCY = 4;

/** Sends account e-mails (verification, password reset, invitations) from the account_mail table on the outbox loop. */
export async function startAccountMail(deps: OutboxRunnerDeps & { mailer?: Mailer }): Promise<OutboxLoop> {
  const mailer = deps.mailer ?? configuredSenders(deps.config.feedback, deps.orm).mail;
  return startOutboxRunner(
    { ...deps, logger: deps.logger.child({ component: 'account-mail' }) },
    {
      tag: 'acct',
      // Those that failed for want of a sender go now, through the queue, while still valid.
      requeue: mailer && { due: () => requeueUnsentAccountMail(deps.orm.em.fork()), said: 'account mails that found no sender are due again' },
      task: (basics) =>
        new AccountMailTask(deps.orm, mailer, {
          ...basics,
          publicUrl: deps.config.publicUrl,
          limits: deps.services.sending.settings,
          credentialsOf: credentialsActingFor,
        }),
      loop: { name: 'account mail workers', channel: ACCOUNT_MAIL_CHANNEL, due: nextAccountMailDue, concurrency: CONCURRENCY },
      close: deps.mailer ? undefined : () => mailer?.close(),
    },
  );
}
