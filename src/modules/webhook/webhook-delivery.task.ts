import { LockMode } from '@mikro-orm/core';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { WebhookSettings } from '../../config.js';
import type { HttpOutcome, HttpSender } from '../../shared/sender.ports.js';
import { recordEvent } from '../event/index.js';
import type { DeliveryAttempt, DeliveryStatus } from './webhook-delivery.entity.js';
import { Webhook } from './webhook.entity.js';
import { presentWebhook } from './webhook.service.js';
import { signatureHeader } from './webhook-signature.rules.js';
import * as repo from './webhook.repo.js';
import type { AttemptRecord, ClaimedDelivery, FanOut, LeaseAsk } from './webhook.repo.js';
import { webhookAttempts } from '../../kit/metrics/metrics.js';

/** The fixed numbers of delivery (issue 11); the schedule and the rate come from the configuration. */
export const DELIVERY_LIMITS = {
  timeoutMs: 15_000,
  /** Longer than an attempt can take: a lease outlives its attempt unless the process died. */
  leaseMs: 30_000,
  maxInFlightPerWebhook: 4,
  maxBodyBytes: 256 * 1024,
  storedResponseBytes: 4096,
  maxRetryAfterMs: 3_600_000,
  jitter: 0.2,
  disableAfterMs: 5 * 86_400_000,
  disableAfterExhausted: 3,
};

const RECORD_BATCH = 64;
const RECORD_DELAY_MS = 10;

export type { ClaimedDelivery };

/** The worker's lanes as a lease asks about them (LeaseAsk without what the task itself knows). */
export type Lanes = Omit<LeaseAsk, 'leaseMs' | 'worker' | 'cap'>;

/** What a receiver gets: the event as the events API shows it, `timestamp` in ms. */
export function deliveryBody(event: { id: string; type: string; createdAt: Date; business: string; data: Record<string, unknown> }): string {
  const body = JSON.stringify({ id: event.id, type: event.type, timestamp: event.createdAt.getTime(), business: event.business, data: event.data });
  if (Buffer.byteLength(body) <= DELIVERY_LIMITS.maxBodyBytes) return body;
  // Too large to post: the receiver gets the object's id and reads the rest through the API.
  const object = (event.data.object ?? {}) as Record<string, unknown>;
  return JSON.stringify({
    id: event.id,
    type: event.type,
    timestamp: event.createdAt.getTime(),
    business: event.business,
    data: { object: { id: object.id, object: object.object } },
    truncated: true,
  });
}

/** The delay before the retry that follows failed attempt number `attempt` (1-based), or undefined: no more. */
export function retryDelay(
  schedule: number[],
  attempt: number,
  outcome: Pick<HttpOutcome, 'status' | 'retryAfterMs'>,
  random = Math.random,
): number | undefined {
  if (attempt > schedule.length) return undefined;
  if ((outcome.status === 429 || outcome.status === 503) && outcome.retryAfterMs != null) {
    return Math.min(outcome.retryAfterMs, DELIVERY_LIMITS.maxRetryAfterMs);
  }
  return Math.round(schedule[attempt - 1] * (1 + DELIVERY_LIMITS.jitter * (2 * random() - 1)));
}

/**
 * The webhook deliveries' queue tasks, run by the workers (src/worker): fan events out into deliveries, lease due
 * deliveries, attempt one, record what happened and schedule what follows.
 */
export class WebhookDeliveryTask {
  constructor(
    private readonly orm: MikroORM,
    private readonly sender: HttpSender,
    private readonly settings: WebhookSettings,
    private readonly logger: Logger,
    readonly workerId: string,
  ) {}

  /**
   * Fans events out into deliveries (webhook.repo.ts: one statement). With `lanes`, the new deliveries are leased to
   * this worker as a claim with them would lease them.
   */
  async fanOut(limit = 500, lanes?: Lanes): Promise<FanOut> {
    const em = this.orm.em.fork();
    const fanned = await repo.fanOutEvents(em, limit, new Date(), lanes && this.ask(lanes));
    // Deliveries it did not lease (a webhook held by another worker, a full lane): any worker's claim takes them.
    if (fanned.made > fanned.leased.length) repo.notifyWorkers(em);
    return fanned;
  }

  /**
   * Leases up to `lanes.limit` due deliveries to this worker, per webhook up to its lane's depth (`lanes.depth`, or the
   * cap in flight for the `lanes.slow` ones) less what it holds leased (`lanes.held`); `lanes.heldBack` webhooks (rate)
   * get none.
   */
  async claim(lanes: Lanes): Promise<ClaimedDelivery[]> {
    if (lanes.limit <= 0) return [];
    return repo.claimDeliveries(this.orm.em.fork(), this.ask(lanes));
  }

  private ask(lanes: Lanes): LeaseAsk {
    return { ...lanes, leaseMs: DELIVERY_LIMITS.leaseMs, worker: this.workerId, cap: DELIVERY_LIMITS.maxInFlightPerWebhook };
  }

  async release(ids: string[]) {
    if (ids.length) await repo.releaseDeliveries(this.orm.em.fork(), this.workerId, ids);
  }

  /** Gives back the webhooks this worker holds, once its attempts are over (shutdown). */
  releaseWebhooks() {
    return repo.releaseWebhooks(this.orm.em.fork(), this.workerId);
  }

  /**
   * One attempt of a leased delivery; never throws for the receiver's failures. Answers once the exchange is over,
   * with `recorded`, settled once its outcome is written (a batch at a time; the lease ends there) with the time of
   * the retry it scheduled, if any: the caller's slot for the webhook frees at the answer, not after the write.
   */
  async attempt(delivery: ClaimedDelivery): Promise<{ outcome: HttpOutcome; recorded: Promise<Date | null> }> {
    const body = deliveryBody({
      id: delivery.event_id,
      type: delivery.event_type,
      createdAt: new Date(delivery.event_created_at),
      business: delivery.business_id,
      data: delivery.event_data,
    });
    const timestamp = Math.floor(Date.now() / 1000);
    const secrets = [delivery.secret, ...(delivery.secret_previous ? [delivery.secret_previous] : [])];
    const at = Date.now();
    const outcome = await this.sender.post(
      delivery.url,
      {
        'content-type': 'application/json',
        'webhook-id': delivery.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signatureHeader(secrets, delivery.id, timestamp, body),
      },
      body,
    );
    return { outcome, recorded: this.record(delivery, at, outcome) };
  }

  private async record(delivery: ClaimedDelivery, at: number, outcome: HttpOutcome): Promise<Date | null> {
    const attempt: DeliveryAttempt = {
      at,
      durationMs: outcome.durationMs,
      responseStatus: outcome.status,
      responseBody: outcome.body,
      error: outcome.error,
    };
    const number = delivery.attempt_count + 1;
    let status: DeliveryStatus;
    let next: Date | null = null;
    if (!outcome.error) status = 'succeeded';
    else if (delivery.status === 'succeeded')
      status = 'succeeded'; // a redelivery of a delivered event: one try
    else if (outcome.status === 410) status = 'exhausted';
    else {
      const delay = retryDelay(this.settings.retrySchedule, number, outcome);
      status = delay == null ? 'exhausted' : 'failed';
      if (delay != null) next = new Date(Date.now() + delay);
    }
    webhookAttempts.inc({ outcome: outcome.error ? status : 'succeeded' });
    await this.recordSoon({ id: delivery.id, status, attempt, next_attempt_at: next, ok: !outcome.error });
    if (!outcome.error) return null;
    this.logger.info(
      {
        delivery: delivery.id,
        webhook: delivery.webhook_id,
        attempt: number,
        error: outcome.error,
        status: outcome.status,
        message: outcome.message,
        nextAttemptAt: next,
      },
      'webhook attempt failed',
    );
    if (outcome.status === 410) await this.disable(delivery.business_id, delivery.webhook_id, 'gone');
    else if (status === 'exhausted') {
      const due = await repo.shouldDisable(
        this.orm.em.fork(),
        delivery.business_id,
        delivery.webhook_id,
        DELIVERY_LIMITS.disableAfterMs,
        DELIVERY_LIMITS.disableAfterExhausted,
      );
      if (due) await this.disable(delivery.business_id, delivery.webhook_id, 'failing');
    }
    return next;
  }

  private batch: Array<{ row: AttemptRecord; done: (err?: unknown) => void }> = [];
  private flushTimer?: NodeJS.Timeout;

  /**
   * Outcomes are written a batch at a time (one statement for up to RECORD_BATCH, or what came within
   * RECORD_DELAY_MS): at a thousand attempts a second, one commit each would be most of the database's work.
   * Resolves once this outcome is written.
   */
  private recordSoon(row: AttemptRecord): Promise<void> {
    return new Promise((resolve, reject) => {
      this.batch.push({ row, done: (err) => (err ? reject(err) : resolve()) });
      if (this.batch.length >= RECORD_BATCH) void this.flush();
      else this.flushTimer ??= setTimeout(() => void this.flush(), RECORD_DELAY_MS);
    });
  }

  private async flush() {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batch = this.batch;
    this.batch = [];
    if (!batch.length) return;
    try {
      await repo.recordAttempts(
        this.orm.em.fork(),
        this.workerId,
        batch.map((b) => b.row),
      );
      for (const b of batch) b.done();
    } catch (err) {
      for (const b of batch) b.done(err);
    }
  }

  /** Disables a webhook and records `webhook.disabled` (with the reason), once. */
  async disable(business: string, webhookId: string, reason: 'gone' | 'failing') {
    await this.orm.em.fork().transactional(async (tx) => {
      const webhook = await tx.findOne(Webhook, { business, id: webhookId, enabled: true }, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if (!webhook) return;
      webhook.enabled = false;
      recordEvent(tx, webhook.business, 'webhook.disabled', { ...presentWebhook(webhook), disabledReason: reason });
    });
    this.logger.warn({ webhook: webhookId, reason }, 'webhook disabled');
  }
}
