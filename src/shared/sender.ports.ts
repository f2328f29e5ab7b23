/**
 * The outbound ports: what a message sender does, as plain types. The senders (src/senders) implement them and the
 * modules that send (feedback requests, webhook deliveries) call them; here, in shared, so a sender imports no module.
 */

/** What a sender reports back: delivered to the provider, or why not, and whether trying again may help. */
export interface SendOutcome {
  ok: boolean;
  /** The provider refused for good (a 5xx SMTP reply, a 4xx HTTP answer): no retry. */
  permanent?: boolean;
  error?: string;
}

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  /** An HTML alternative of `text` (multipart/alternative): the same words, readable without its images. */
  html?: string;
  /** Where the guest's answer goes (the restaurant's own address). */
  replyTo?: string;
  headers?: Record<string, string>;
  /** The display name of the From (the restaurant's), on the configured address; default: the configured From. */
  fromName?: string;
  /** Threading (RFC 5322), each with its angle brackets: this message's id, the one it answers, the thread's ids. */
  messageId?: string;
  inReplyTo?: string;
  references?: string[];
}

export interface Mailer {
  send(message: MailMessage): Promise<SendOutcome>;
  close(): void;
}

/** An SMS provider: one text to one E.164 number. */
export interface SmsProvider {
  readonly name: string;
  send(to: string, body: string): Promise<SendOutcome>;
}

/** Why an attempt failed, as the delivery log shows it. */
export type AttemptError = 'timeout' | 'connect' | 'dns' | 'tls' | 'http_status' | 'blocked_address';

export interface HttpOutcome {
  /** The response status, when a response came. */
  status: number | null;
  /** The first `maxStoredBytes` of the response body, as text. */
  body: string | null;
  durationMs: number;
  /** null on a 2xx. */
  error: AttemptError | null;
  /** A human-readable reason, for logs. */
  message?: string;
  /** From `Retry-After`, in ms. */
  retryAfterMs?: number;
}

/** POSTs to endpoints outside (webhook deliveries); never throws: a failure is an outcome. */
export interface HttpSender {
  post(target: string, headers: Record<string, string>, body: string): Promise<HttpOutcome>;
}

/** Why a message of a channel with no sender configured is failed at once. */
export const NO_SENDER = {
  email: 'no sender configured for e-mail (set SMTP_URL)',
  sms: 'no sender configured for SMS (set TWILIO_* or SMS_GATEWAY_URL)',
} as const;
