import { createHmac } from 'node:crypto';
import type { Context } from 'koa';
import type { FeedbackSettings } from '../config.js';
import type { FailureLimit } from '../http/rate-limit/rate-limits.js';
import { AppError } from '../shared/errors.js';
import { bearerToken } from '../shared/bearer.js';
import { constantTimeEqual, hashSecret } from '../shared/secrets.js';

/** The failure limit's identifier for this door: one endpoint, whoever calls it. */
const IDENTIFIER = 'sms-inbound';

const SECRET_HEADERS = 'Authorization: Bearer <SMS_INBOUND_SECRET> or X-Sms-Inbound-Secret: <SMS_INBOUND_SECRET>';

/**
 * Twilio's request signature (`X-Twilio-Signature`): HMAC-SHA1 keyed with the auth token over the URL Twilio
 * requested, then each POST parameter's name and value, by name (a repeated name's distinct values sorted, as
 * Twilio's own libraries do); base64.
 */
export function twilioSignature(authToken: string, url: string, params: URLSearchParams): string {
  let data = url;
  for (const name of [...new Set(params.keys())].sort()) for (const value of [...new Set(params.getAll(name))].sort()) data += name + value;
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** Compared as hashes: the time depends neither on where the strings differ nor on their lengths. */
const matches = (given: string | undefined, expected: string) => given !== undefined && constantTimeEqual(hashSecret(given), hashSecret(expected));

/**
 * Who may post guests' SMS: with Twilio as the provider (TWILIO_*), requests Twilio signed with TWILIO_AUTH_TOKEN for
 * the address `{PUBLIC_URL}{path}` it called; otherwise a gateway holding SMS_INBOUND_SECRET, in a header only.
 * A gateway's failures are counted per client address (FailureLimit): a guesser is refused, the rightful sender never
 * is. Twilio's are not counted: its signature cannot be guessed, and its addresses are shared by every Twilio account.
 */
export class SmsInboundAuth {
  /** `key`: Twilio's auth token, or the gateway's shared secret. */
  private constructor(
    readonly provider: 'twilio' | 'gateway',
    private readonly key: string,
    private readonly publicUrl: string,
    private readonly failures?: FailureLimit,
  ) {}

  /** Undefined when inbound SMS is not configured (neither Twilio nor SMS_INBOUND_SECRET). */
  static of(feedback: FeedbackSettings, publicUrl: string, failures?: FailureLimit): SmsInboundAuth | undefined {
    if (feedback.twilio) return new SmsInboundAuth('twilio', feedback.twilio.authToken, publicUrl, failures);
    if (feedback.smsInboundSecret) return new SmsInboundAuth('gateway', feedback.smsInboundSecret, publicUrl, failures);
    return undefined;
  }

  /** Throws 400 for a secret in the query string, 429 for an address with too many failures, 401 for a wrong one. */
  async verify(ctx: Context): Promise<void> {
    if (this.provider === 'gateway' && ctx.query.secret !== undefined) {
      throw new AppError(
        'bad_request',
        `The inbound SMS secret is not taken from the query string (addresses end up in logs): send it as ${SECRET_HEADERS}, and remove ?secret= from the address`,
      );
    }
    // Twilio's signature is an HMAC of the very request, nothing to guess at speed; and Twilio posts from addresses it
    // shares with every other Twilio account, whose failures must never refuse (or delay) our own guests' texts.
    if (this.provider === 'twilio') {
      if (!this.verified(ctx)) throw this.refusal(ctx);
      return;
    }
    const admission = await this.failures?.admit(IDENTIFIER, ctx.ip);
    if (admission) ctx.set(admission.headers);
    if (!this.verified(ctx)) {
      await this.failures?.failed(IDENTIFIER, ctx.ip);
      throw this.refusal(ctx);
    }
    await this.failures?.succeeded(admission);
  }

  private verified(ctx: Context): boolean {
    if (this.provider === 'gateway')
      return matches(bearerToken(ctx.get('authorization') || undefined) ?? (ctx.get('x-sms-inbound-secret') || undefined), this.key);
    const raw = (ctx.request as { rawBody?: string }).rawBody;
    const params = ctx.is('urlencoded') && raw ? new URLSearchParams(raw) : new URLSearchParams();
    return matches(ctx.get('x-twilio-signature') || undefined, twilioSignature(this.key, this.signedUrl(ctx), params));
  }

  /** The address Twilio requested, as it signed it: PUBLIC_URL and the path and query this service received. */
  private signedUrl(ctx: Context): string {
    return `${this.publicUrl}${ctx.originalUrl}`;
  }

  private refusal(ctx: Context): AppError {
    if (this.provider === 'gateway') {
      return new AppError('unauthorized', `A valid inbound SMS secret is required: ${SECRET_HEADERS}`, undefined, { 'WWW-Authenticate': 'Bearer' });
    }
    return new AppError(
      'unauthorized',
      `A valid X-Twilio-Signature is required: Twilio signs with TWILIO_AUTH_TOKEN the address it calls, here ${this.signedUrl(ctx)} (PUBLIC_URL and the path), so its messaging webhook must be exactly that`,
    );
  }
}
