/** The outbound ports of feedback requests: the senders in src/senders implement them. */
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
  headers?: Record<string, string>;
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
