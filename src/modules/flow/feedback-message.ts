/** The outbound ports of feedback requests: the senders in src/senders implement them (declared in src/shared/sender.ports.ts). */
export type { Mailer, MailMessage, SendOutcome, SmsProvider } from '../../shared/sender.ports.js';
