import { randomBytes } from 'node:crypto';
import { settledSend, workerLeases, type SendSettled } from '../../kit/db/outbox-job.leases.js';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { NO_SENDER, type Mailer, type SendOutcome } from '../../shared/sender.ports.js';
import { hashSecret } from '../../shared/secrets.js';
import { accountMailLeases, leasedAccountMail, setAccountMailToken, type LeasedAccountMail } from './account-mail.repo.js';
import type { AccountMailKind } from './account-mail.entity.js';
import { letInvitationThrough } from './account-mail.service.js';
import type { SendingSettings } from '../../config.js';

const ACCOUNT_MAIL_LEASE_MS = 60_000;

/**
 * The reset mail's word on the API credentials the user created: a new password signs out every device, not an app
 * that holds a credential's secret, so each is named with its business and the place to rotate its secret.
 */
function credentialsLeft(credentials: CredentialOfUser[], portal: string): string {
  if (!credentials.length) return '';
  const list = credentials.map((c) => `- ${c.name} (${c.business.name})`).join('\n');
  return `\nA new password signs out every device, but not the apps holding the secret of an API credential you created: their tokens act for you until the secret is rotated or the credential deleted. Yours:\n\n${list}\n\nIf someone else may have used your account, rotate each secret under API credentials in the portal:\n\n${portal}credentials\n`;
}
/** Waits before the 2nd to 5th try of a send that may pass; a reset link lives 30 minutes, so the tries stay short. */
const RETRY_MS = [10_000, 30_000, 120_000, 600_000];

/** Each link's token prefix: readable in a log line, never confused with another secret. */
export const TOKEN_PREFIX: Record<Exclude<AccountMailKind, 'exists'>, string> = { verify: 'ev_', reset: 'pr_', invitation: 'iv_' };
/** The page each link opens (under PUBLIC_URL). */
const LINK_PATH: Record<Exclude<AccountMailKind, 'exists'>, string> = {
  verify: '/oauth/verify',
  reset: '/oauth/password/reset',
  invitation: '/oauth/invitation',
};

/** A credential the user created, named in their reset mail: its client_credentials tokens act for them. */
export interface CredentialOfUser {
  name: string;
  business: { name: string };
}

/**
 * Sends account e-mails from account_mail, one leased row at a time. A link's token is made here, when it is sent,
 * and only its hash stored: a retry makes a new one (the previous send failed, or at worst its link stops working).
 * `credentialsOf` (the OAuth module's, handed by the worker: this module sits below it) names, in a reset mail, the
 * credentials that a new password leaves acting for the user.
 */
export class AccountMailTask {
  constructor(
    private readonly orm: MikroORM,
    private readonly mailer: Mailer | undefined,
    private readonly options: {
      publicUrl: string;
      workerId: string;
      clock: () => Date;
      logger: Logger;
      /** ACCOUNT_MAILS_PER_ADDRESS_HOUR: a held invitation waits for its inbox's hour. */
      limits: Pick<SendingSettings, 'accountMailsPerHour'>;
      credentialsOf?: (em: EntityManager, user: string) => Promise<CredentialOfUser[]>;
    },
  ) {}

  /** The outbox loop claims and releases through these (kit/db/outbox-job.leases.ts). */
  private readonly leases = workerLeases(accountMailLeases, this.orm, { leaseMs: ACCOUNT_MAIL_LEASE_MS, ...this.options });
  readonly claim = this.leases.claim;
  readonly release = this.leases.release;

  async run(id: string): Promise<void> {
    const em = this.orm.em.fork();
    const worker = this.options.workerId;
    const mail = await leasedAccountMail(em, id, worker);
    if (!mail) return;
    const finish = (change: Parameters<typeof accountMailLeases.finish>[3]) => accountMailLeases.finish(em, id, worker, change);
    if (!this.mailer) {
      // Kept failed with the reason; a start with a sender sends it while its link is valid (requeueUnsentAccountMail).
      this.options.logger.warn(
        { mail: id, kind: mail.kind },
        'account mail not sent: no e-mail sender is configured. Set SMTP_URL (or MAIL_OUTBOX=dev to try it locally) and restart: it is sent then, while still valid',
      );
      return finish({ status: 'failed', error: NO_SENDER.email, due_at: null });
    }
    if (mail.kind === 'invitation' && !mail.invitation_id)
      return finish({ status: 'failed', error: 'the invitation was revoked before it was sent', due_at: null });
    if (!mail.inbox_at) {
      // Held for its inbox's hour (account-mail.service.ts): it goes once the hour has room.
      const place = await letInvitationThrough(em, mail, this.options.limits, this.options.clock());
      if (!place.through) return finish({ due_at: place.retryAt });
    }
    let link: string | undefined;
    if (mail.kind !== 'exists') {
      const token = `${TOKEN_PREFIX[mail.kind]}${randomBytes(32).toString('base64url')}`;
      if (!(await setAccountMailToken(em, id, worker, hashSecret(token)))) return; // used meanwhile, or the lease is gone
      link = `${this.options.publicUrl}${LINK_PATH[mail.kind]}?token=${token}`;
    }
    const credentials = mail.kind === 'reset' && mail.user_id && this.options.credentialsOf ? await this.options.credentialsOf(em, mail.user_id) : [];
    const outcome = await this.mailer.send({ to: mail.email, ...this.compose(mail, link, credentials) });
    await this.settle(mail.attempts, outcome, finish, { mail: id, kind: mail.kind });
  }

  private compose(m: LeasedAccountMail, link: string | undefined, credentials: CredentialOfUser[]): { subject: string; text: string } {
    const portal = `${this.options.publicUrl}/portal/`;
    const until = m.expires_at ? new Date(m.expires_at).toUTCString() : '';
    switch (m.kind) {
      case 'verify':
        return {
          subject: 'Confirm your e-mail address',
          text: `Welcome! Open this link to confirm your address, choose your password and finish creating your account:\n\n${link}\n\nThe link works once, until ${until}. If you did not sign up, ignore this e-mail: no account is used without it.\n`,
        };
      case 'reset':
        return {
          subject: 'Reset your password',
          text: `Someone (we hope you) asked to reset the password of the account with this address. To choose a new password, open:\n\n${link}\n\nThe link works once, for 30 minutes (until ${until}). If you did not ask, ignore this e-mail: your password stays as it is.\n${credentialsLeft(credentials, portal)}`,
        };
      case 'exists':
        return {
          subject: 'Someone tried to sign up with your address',
          text: `Someone (perhaps you) tried to create an account with this address, which already has one: nothing was changed. If it was you, sign in at:\n\n${portal}\n\nForgot your password? Reset it at ${this.options.publicUrl}/oauth/password/forgot\n\nIf it was not you, you need do nothing: your account and its password stay as they are.\n`,
        };
      case 'invitation':
        return {
          subject: `You are invited to ${m.business_name ?? 'a business'}`,
          text: `${m.inviter ? `${m.inviter} invites` : 'You are invited'} you to join ${m.business_name} as ${m.role}. To accept, open:\n\n${link}\n\nThe invitation is valid until ${until}.\n`,
        };
    }
  }

  /** Settles a sent mail (kit/db/outbox-job.leases.ts), saying so in the log when it will be tried again. */
  private async settle(before: number, outcome: SendOutcome, finish: (change: SendSettled) => Promise<unknown>, log: Record<string, string>) {
    const change = settledSend(outcome, before, this.options.clock(), RETRY_MS);
    if (!change.status) this.options.logger.warn({ ...log, error: outcome.error }, 'account mail send failed; will retry');
    return finish(change);
  }
}
