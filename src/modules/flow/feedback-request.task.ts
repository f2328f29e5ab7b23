import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { recordEvent } from '../event/index.js';
import { afterQuietHours, render, templateFor } from './feedback-flow.rules.js';
import type { Mailer, SendOutcome, SmsProvider } from '../../shared/sender.ports.js';
import { presentRequest } from './feedback-request.presenter.js';
import { feedbackHtml, feedbackSubject, feedbackText } from './feedback-mail.presenter.js';
import { recordOfRow, suppressionOf, throttledBy } from './feedback-request.service.js';
import { finishLeased, leasedRequest, requestLeases, type LeasedRequest, type RequestChange } from './flow.repo.js';
import type { Reservation, SendingBudgets } from '../sending/index.js';

/** Lease of a claimed request: a worker that dies holding it gives it back by letting it expire. */
const LEASE_MS = 60_000;
/** Waits before the 2nd, 3rd and 4th try of a send that failed for a reason that may pass. */
const RETRY_MS = [60_000, 300_000, 1_800_000];

export interface FeedbackSenders {
  mail?: Mailer;
  sms?: SmsProvider;
}

type Loaded = LeasedRequest;

/** Columns a step sets; the lease is always given back with them. */
type Change = RequestChange;

/**
 * What a due feedback request needs, step by step: its send (after quiet hours, throttle and opt-out are checked
 * again, on the first channel that can reach the guest and has a sender), then one reminder, then its expiry. Each
 * step is recorded only while this worker still holds the lease; the message goes out between the lease and the
 * record, so a crash in that window sends again when the lease expires (at least once, like every queue here).
 */
export class FeedbackRequestTask {
  constructor(
    private readonly orm: MikroORM,
    private readonly senders: FeedbackSenders,
    private readonly options: { surveyUrl: string; workerId: string; clock: () => Date; logger: Logger; sending: SendingBudgets },
  ) {}

  /** Leases up to `limit` due requests to this worker. */
  async claim(limit: number): Promise<string[]> {
    return requestLeases.claim(this.orm.em.fork(), { leaseMs: LEASE_MS, worker: this.options.workerId, now: this.options.clock(), limit });
  }

  /** Gives back leases that will not run (shutdown). */
  async release(ids: string[]) {
    if (!ids.length) return;
    await requestLeases.release(this.orm.em.fork(), this.options.workerId, ids);
  }

  async run(id: string): Promise<void> {
    const em = this.orm.em.fork();
    const r = await leasedRequest(em, id, this.options.workerId);
    if (!r) return; // the lease went to another worker, or the request was settled meanwhile
    const now = this.options.clock();
    if (r.status === 'scheduled') return this.send(em, r, now);
    if (r.status === 'sent' || r.status === 'opened') return this.followUp(em, r, now);
    await this.finish(em, r, { due_at: null }, null); // nothing left to do
  }

  private async send(em: EntityManager, r: Loaded, now: Date) {
    if (r.flow_enabled == null) return this.finish(em, r, { status: 'cancelled', reason: 'flow_deleted', due_at: null });
    if (!r.flow_enabled) return this.finish(em, r, { status: 'cancelled', reason: 'flow_disabled', due_at: null });
    const expires = new Date(r.expires_at).getTime();
    if (now.getTime() >= expires) return this.finish(em, r, { status: 'suppressed', reason: 'order_too_old', due_at: null });
    const allowed = afterQuietHours(now, r.quiet_hours, r.local_zone);
    if (allowed.getTime() > now.getTime()) {
      if (allowed.getTime() >= expires) return this.finish(em, r, { status: 'suppressed', reason: 'quiet_hours', due_at: null });
      return this.finish(em, r, { send_at: allowed, due_at: allowed }, null);
    }
    if ((r.throttle_days ?? 0) > 0) {
      const throttled = await throttledBy(em, r.business_id, {
        emailHash: r.email_hash,
        phoneHash: r.phone_hash,
        before: new Date(r.created_at),
        days: r.throttle_days!,
        excludeOrder: r.order_id,
        beforeId: r.id,
      });
      if (throttled) return this.finish(em, r, { status: 'suppressed', reason: 'throttled', due_at: null });
    }
    const reach = await suppressionOf(em, r.business_id, r.channels ?? [], { email: r.email_hash, sms: r.phone_hash });
    if (reach.reason) return this.finish(em, r, { status: 'suppressed', reason: reach.reason, due_at: null });
    const channels = reach.eligible.filter((c) => (c === 'email' ? this.senders.mail : this.senders.sms));
    if (!channels.length) {
      const missing = reach.eligible.map((c) => (c === 'email' ? 'e-mail (set SMTP_URL)' : 'SMS (set TWILIO_* or SMS_GATEWAY_URL)')).join(', ');
      this.options.logger.warn(
        { request: r.id, channels: reach.eligible },
        `feedback request not sent: no sender configured for ${missing}; it is sent after a restart with one, within its flow's window`,
      );
      return this.finish(em, r, { status: 'failed', error: `no sender configured for ${missing}`, due_at: null });
    }
    // Down the flow's fallback order: a channel that refuses for good (a mailbox that does not exist, a number the
    // provider rejects) hands over to the next; one that may recover is tried again later, itself first. A spent
    // sending budget holds the request until it resets, as quiet hours do.
    const failures: { channel: string; error?: string }[] = [];
    let channel = channels[0];
    let outcome: SendOutcome = { ok: false };
    for (channel of channels) {
      const reservation = await this.reserve(em, r, channel, 'feedback_request', now);
      if (!reservation.reserved) return this.finish(em, r, { send_at: reservation.until, due_at: reservation.until }, null);
      outcome = await this.deliver(r, channel, false);
      if (!outcome.ok) await reservation.giveBack();
      if (outcome.ok) break;
      failures.push({ channel, error: outcome.error });
      if (!outcome.permanent) break;
    }
    // One channel's error as the provider gave it; several, each named.
    const error = failures.length === 1 ? (failures[0].error ?? null) : failures.map((f) => `${f.channel}: ${f.error}`).join('; ') || null;
    const attempts = r.attempts + 1;
    if (outcome.ok) {
      const reminder = r.reminder_after_hours ? now.getTime() + r.reminder_after_hours * 3_600_000 : Infinity;
      return this.finish(em, r, { status: 'sent', channel, sent_at: now, attempts, error, due_at: new Date(Math.min(reminder, expires)) });
    }
    if (!outcome.permanent && attempts <= RETRY_MS.length) {
      // The request and the channel, never the guest's address: the senders' errors are scrubbed of it (src/senders).
      this.options.logger.warn({ request: r.id, channel, error }, 'feedback request send failed; will retry');
      return this.finish(em, r, { attempts, error, due_at: new Date(now.getTime() + RETRY_MS[attempts - 1]) }, null);
    }
    return this.finish(em, r, { status: 'failed', attempts, error, channel, due_at: null });
  }

  /** After the send: one reminder if the flow asks for one (opt-out checked again), then the expiry. */
  private async followUp(em: EntityManager, r: Loaded, now: Date) {
    const expires = new Date(r.expires_at);
    if (now.getTime() >= expires.getTime()) return this.finish(em, r, { status: 'expired', due_at: null });
    if (r.reminder_after_hours && !r.reminded_at && r.channel) {
      const reach = await suppressionOf(em, r.business_id, [r.channel], { email: r.email_hash, sms: r.phone_hash });
      if (reach.channel) {
        // A spent budget holds the reminder until it resets (before the expiry, or never).
        const reservation = await this.reserve(em, r, r.channel, 'reminder', now);
        if (!reservation.reserved) return this.finish(em, r, { due_at: new Date(Math.min(reservation.until.getTime(), expires.getTime())) }, null);
        const outcome = await this.deliver(r, r.channel, true);
        if (outcome.ok) return this.finish(em, r, { reminded_at: now, due_at: expires }, 'feedbackrequest.reminded');
        await reservation.giveBack();
      }
    }
    return this.finish(em, r, { due_at: expires }, null);
  }

  /** A unit of the business's budget and the guest's on `channel` (sending-budget.service.ts), or the time to wait. */
  private reserve(em: EntityManager, r: Loaded, channel: string, kind: 'feedback_request' | 'reminder', now: Date): Promise<Reservation> {
    const guest = channel === 'sms' ? r.customer_phone : r.customer_email;
    return this.options.sending.reserve(em, { business: r.business_id, channel: channel as 'email' | 'sms', kind, guest }, now);
  }

  private deliver(r: Loaded, channel: string, reminder: boolean): Promise<SendOutcome> {
    const { template, lang } = templateFor(r.templates ?? {}, r.order_metadata?.lang);
    const link = `${this.options.surveyUrl}/r/${r.token}`;
    const unsubscribe = `${link}/unsubscribe`;
    const values = { link, name: r.customer_name, orderId: r.external_order_id };
    const body = render(template.body, values);
    // Who is asking comes first (issue 36): the SMS starts with the restaurant's display name.
    if (channel === 'sms') return this.senders.sms!.send(r.customer_phone!, `${r.business_name}: ${body} Reply STOP to opt out.`);
    // The default subject names the restaurant, in the guest's language (the template's own subject wins).
    const mailLang = r.order_metadata?.lang ?? lang;
    const subject = render(feedbackSubject(template.subject, mailLang, r.business_name), values);
    const fullSubject = reminder ? `Reminder: ${subject}` : subject;
    const html = feedbackHtml({
      lang: mailLang,
      business: r.business_name,
      brandColor: r.brand_color,
      baseUrl: this.options.surveyUrl,
      businessId: r.business_id,
      logoFile: r.logo_file,
      subject: fullSubject,
      body,
      link,
      unsubscribe,
    });
    return this.senders.mail!.send({
      to: r.customer_email!,
      fromName: r.business_name,
      replyTo: r.reply_to ?? undefined,
      subject: fullSubject,
      text: feedbackText({ lang: mailLang, body, unsubscribe }),
      html,
      // RFC 2369 and RFC 8058: mail clients show an unsubscribe button that posts to the link.
      headers: { 'List-Unsubscribe': `<${unsubscribe}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
    });
  }

  /**
   * Applies `change` and gives the lease back, only while this worker holds it; records `feedbackrequest.<status>`
   * when the status changed (or `event` when given), in the same transaction.
   */
  private async finish(em: EntityManager, r: Loaded, change: Change, event?: string | null) {
    await em.transactional(async (tx) => {
      const row = await finishLeased(tx, r.business_id, r.id, this.options.workerId, change);
      if (!row) return;
      const type = event === undefined ? (change.status ? `feedbackrequest.${change.status}` : null) : event;
      if (type) {
        const record = recordOfRow(row);
        recordEvent(tx, record.business, type, presentRequest(record));
      }
    });
  }
}
