import { createRequire } from 'node:module';
import type { Transporter } from 'nodemailer';
import type { Mailer, MailMessage, SendOutcome } from '../shared/sender.ports.js';
import { withoutContact } from './contact.scrub.js';

// Loaded when SMTP_URL makes a mailer, not by every process at start: heap a process without it never uses.
const require = createRequire(import.meta.url);

/**
 * E-mail over SMTP (SMTP_URL, e.g. smtp://user:pass@mail.example.com:587 or smtps://...:465), through a pool of
 * kept-open connections (at most 16, the runner's concurrency) so a burst of requests does not open one per message.
 */
export class SmtpMailer implements Mailer {
  private readonly transport: Transporter;
  constructor(
    smtpUrl: string,
    private readonly from: string,
  ) {
    const nodemailer = require('nodemailer') as typeof import('nodemailer');
    this.transport = nodemailer.createTransport(smtpUrl.includes('?') ? smtpUrl : `${smtpUrl}?pool=true&maxConnections=16`, {
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    } as never);
  }

  async send(message: MailMessage): Promise<SendOutcome> {
    try {
      await this.transport.sendMail({
        from: fromOf(this.from, message.fromName),
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        replyTo: message.replyTo,
        headers: message.headers,
        messageId: message.messageId,
        inReplyTo: message.inReplyTo,
        references: message.references,
      });
      return { ok: true };
    } catch (err) {
      const e = err as { responseCode?: number; message?: string; code?: string };
      // 5xx: the server refused this message for good; anything else (4xx, connection, timeout) may pass later.
      const permanent = typeof e.responseCode === 'number' && e.responseCode >= 500;
      return { ok: false, permanent, error: withoutContact(`smtp: ${e.responseCode ?? e.code ?? ''} ${e.message ?? String(err)}`, message.to).slice(0, 500) };
    }
  }

  close() {
    this.transport.close();
  }
}

/** A display name on one line: a line break in a header would start another header. */
const oneLine = (name: string) =>
  name
    .replace(/[\r\n]+/g, ' ')
    .trim()
    .slice(0, 200);

/**
 * The From of a message: the configured address (MAIL_FROM) under the message's display name when it gives one (the
 * business's), else the configured From as it stands (its own display name: the service's).
 */
export function fromOf(configured: string, fromName?: string): { name: string; address: string } {
  const match = /^\s*"?([^"<]*?)"?\s*<([^<>]+)>\s*$/.exec(configured);
  const address = match?.[2] ?? configured.trim();
  return { name: fromName ? oneLine(fromName) : (match?.[1].trim() ?? ''), address };
}
