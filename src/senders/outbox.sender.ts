import type { Mailer, MailMessage, SendOutcome, SmsProvider } from '../shared/sender.ports.js';
import { fromOf } from './mail.sender.js';

/** What the dev outbox keeps of one message (the worker hands in where: the dev-outbox module's table). */
interface KeptMessage {
  channel: 'email' | 'sms';
  sender: string;
  recipient: string;
  subject: string | null;
  body: string;
}
export type Keep = (message: KeptMessage) => Promise<void>;

/** A failure to keep is reported like a transport's, so the queue's retries apply as they would to SMTP. */
async function kept(keep: Keep, message: KeptMessage): Promise<SendOutcome> {
  try {
    await keep(message);
    return { ok: true };
  } catch (err) {
    return { ok: false, error: `dev outbox: ${(err as Error).message}`.slice(0, 500) };
  }
}

/**
 * MAIL_OUTBOX=dev: each e-mail kept as it would have gone out (its From, To, subject and text), shown at
 * /portal/dev/outbox, instead of sent. Only the transport changes: queues, budgets and retries are the same.
 */
export class OutboxMailer implements Mailer {
  constructor(
    private readonly keep: Keep,
    private readonly from: string,
  ) {}

  send(message: MailMessage): Promise<SendOutcome> {
    const { name, address } = fromOf(this.from, message.fromName);
    return kept(this.keep, {
      channel: 'email',
      sender: name ? `${name} <${address}>` : address,
      recipient: message.to,
      subject: message.subject,
      body: message.text,
    });
  }

  close() {}
}

/** MAIL_OUTBOX=dev for texts: kept likewise, instead of reaching an SMS provider. */
export class OutboxSms implements SmsProvider {
  readonly name = 'dev-outbox';
  constructor(private readonly keep: Keep) {}

  send(to: string, body: string): Promise<SendOutcome> {
    return kept(this.keep, { channel: 'sms', sender: 'SMS', recipient: to, subject: null, body });
  }
}
