import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../config.js';
import type { Mailer, SmsProvider } from '../shared/sender.ports.js';
import { SmtpMailer } from '../senders/mail.sender.js';
import { GatewaySms, TwilioSms } from '../senders/sms.sender.js';
import { OutboxMailer, OutboxSms, type Keep } from '../senders/outbox.sender.js';
import { keepMessage } from '../modules/dev-outbox/index.js';

export interface Senders {
  mail?: Mailer;
  sms?: SmsProvider;
}

/**
 * The senders the configuration names, for every queue that sends: with MAIL_OUTBOX=dev, the dev outbox for both
 * channels; else SMTP_URL for e-mail and Twilio or a gateway for texts. A channel without one leaves its messages
 * failed with the reason (NO_SENDER), sent later once a sender is configured (requeueUnsent).
 */
export function configuredSenders(settings: Config['feedback'], orm: MikroORM): Senders {
  if (settings.outbox === 'dev') {
    const keep: Keep = (message) => keepMessage(orm.em, message);
    return { mail: new OutboxMailer(keep, settings.mailFrom), sms: new OutboxSms(keep) };
  }
  return {
    mail: settings.smtpUrl ? new SmtpMailer(settings.smtpUrl, settings.mailFrom) : undefined,
    sms: settings.twilio ? new TwilioSms(settings.twilio) : settings.smsGatewayUrl ? new GatewaySms(settings.smsGatewayUrl) : undefined,
  };
}

/** The channels that have a sender. */
export const channelsOf = (senders: Senders): Array<'email' | 'sms'> => [...(senders.mail ? ['email' as const] : []), ...(senders.sms ? ['sms' as const] : [])];
