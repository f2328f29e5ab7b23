import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import { PgListener } from '../kit/pg-listener.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { HttpSender } from '../senders/http.sender.js';
import { DELIVERY_LIMITS, WebhookDeliveryTask, type ClaimedDelivery } from '../modules/webhook/webhook-delivery.task.js';
import { RateLimiter } from './rate.limiter.js';
import { IdlePoll } from './idle.poll.js';
import { startFeedbackRequests } from './feedback-request.runner.js';
import { startCaseOutbox } from './case-outbox.runner.js';
import { startAccountMail } from './account-mail.runner.js';
import { WEBHOOK_WORK_CHANNEL } from '../modules/event/event.signal.js';

export interface Workers {
  /** Stops leasing, lets the attempts in flight finish (at most their timeout) and gives back what did not start. */
  stop(): Promise<void>;
  /** Attempts in flight now. */
  readonly inFlight: number;
}

/** How often an idle worker looks for work when no notification wakes it first. */
const IDLE_POLL_MS = 250;
const PURGE_EVERY_MS = 3_600_000;
const FAN_OUT_BATCH = 500;
const CLAIM_GATHER_MS = 3;
/** Leased ahead per webhook at most (fewer with a low rate: a second's worth, and never fewer than the cap in flight). */
const LANE_DEPTH = 32;
/** An attempt slower than this (or cut, or refused) marks its webhook slow for a while: nothing leased ahead for it. */
const SLOW_MS = 1_000;
const SLOW_FOR_MS = 60_000;
/** A leased delivery starts only while its lease outlives a whole attempt by this much; else it is given back. */
const LEASE_MARGIN_MS = 2_000;

/**
 * One webhook's work in this process: deliveries leased and waiting, attempts started (at most 4), and how many
 * leases it holds (waiting, started, or ended but not yet recorded).
 */
interface Lane {
  queue: Array<{ delivery: ClaimedDelivery; leasedAt: number }>;
  started: number;
  leased: number;
}

/**
 * The job queue's runner in this process: fans recorded events out into deliveries and runs due deliveries, up to
 * `config.workers` attempts at once, at most 4 per webhook and its rate. The queue is the database itself
 * (event.fanout_pending, webhook_delivery.next_attempt_at): several processes share it with SKIP LOCKED leases.
 * A LISTEN on `webhook_work` (notified by the event trigger) wakes it as soon as an event commits.
 *
 * Each webhook is a lane: its deliveries are leased a batch ahead (one claim for many attempts), started as its
 * in-flight cap and rate allow, and each attempt's slot frees when the receiver has answered; the outcome is written
 * afterwards, a batch at a time. One slow webhook fills only its own lane.
 */
export async function startWorkers(deps: { orm: MikroORM; logger: Logger; config: Pick<Config, 'workers' | 'webhooks' | 'publicUrl' | 'surveyUrl' | 'feedback'> }): Promise<Workers> {
  const { orm, config } = deps;
  const logger = deps.logger.child({ component: 'worker' });
  const sender = new HttpSender({
    timeoutMs: DELIVERY_LIMITS.timeoutMs,
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
    userAgent: 'feedback-service-webhooks/1 (+https://www.standardwebhooks.com)',
    maxStoredBytes: DELIVERY_LIMITS.storedResponseBytes,
  });
  const workerId = `${os.hostname().slice(0, 30)}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const task = new WebhookDeliveryTask(orm, sender, config.webhooks, logger, workerId);
  const rate = new RateLimiter(config.webhooks.ratePerSecond);
  const cap = DELIVERY_LIMITS.maxInFlightPerWebhook;
  const depth = Math.min(LANE_DEPTH, Math.max(cap, Math.ceil(config.webhooks.ratePerSecond)));
  const maxLeased = Math.max(config.workers * 4, depth);
  const lanes = new Map<string, Lane>();
  /** Webhooks whose last attempt was slow or failed to connect, until when they count as slow. */
  const slowUntil = new Map<string, number>();
  /** Every attempt until its outcome is written (or its lease given back). */
  const attempts = new Set<Promise<void>>();
  let started = 0;
  let leased = 0;
  let stopping = false;
  const idle = new IdlePoll(IDLE_POLL_MS);
  const nudge = () => idle.wake();
  // What the next turn of the loop should do: fan out (an event committed) and/or lease (a lane ran low).
  let fanOutWanted = true;
  let claimWanted = true;
  // The last claim found nothing due: lanes running low need not ask again until new work is announced.
  let dry = false;
  let soon: NodeJS.Timeout | undefined;
  // Lanes run low one attempt at a time: gather for a few ms, then lease once for all of them.
  const claimSoon = () => {
    claimWanted = true;
    soon ??= setTimeout(() => ((soon = undefined), nudge()), CLAIM_GATHER_MS);
  };

  // Woken at each event's commit; while the connection is lost (it reconnects), the poll still finds the work.
  const eventCommitted = () => {
    fanOutWanted = true;
    nudge();
  };
  const listener = new PgListener(orm, [WEBHOOK_WORK_CHANNEL], { notification: eventCommitted, ready: eventCommitted }, logger, 'webhook workers');
  await listener.start();

  const laneOf = (webhook: string) => {
    let lane = lanes.get(webhook);
    if (!lane) lanes.set(webhook, (lane = { queue: [], started: 0, leased: 0 }));
    return lane;
  };

  /** Starts what the caps allow, one attempt per lane per pass so that lanes share the global room. */
  const pump = () => {
    for (let progress = true; progress && !stopping; ) {
      progress = false;
      for (const [webhook, lane] of lanes) {
        if (started >= config.workers) return;
        if (!lane.queue.length || lane.started >= cap) continue;
        run(webhook, lane, lane.queue.shift()!);
        progress = true;
      }
    }
  };

  const run = (webhook: string, lane: Lane, item: Lane['queue'][number]) => {
    lane.started++;
    started++;
    let slotHeld = true;
    const freeSlot = () => {
      if (!slotHeld) return;
      slotHeld = false;
      lane.started--;
      started--;
      pump();
    };
    const attempt = (async () => {
      try {
        await rate.take(webhook);
        if (stopping || Date.now() + DELIVERY_LIMITS.timeoutMs + LEASE_MARGIN_MS > item.leasedAt + DELIVERY_LIMITS.leaseMs) {
          // Not attempted: back to the queue for any worker (stopping, or waited too long to finish within the lease).
          await task.release([item.delivery.id]);
          return;
        }
        const { outcome, recorded } = await task.attempt(item.delivery);
        if (outcome.durationMs > SLOW_MS || outcome.error === 'timeout' || outcome.error === 'connect') slowUntil.set(webhook, Date.now() + SLOW_FOR_MS);
        else slowUntil.delete(webhook);
        freeSlot();
        await recorded;
      } catch (err) {
        logger.error({ err, delivery: item.delivery.id }, 'webhook attempt could not be recorded');
      } finally {
        freeSlot();
        lane.leased--;
        leased--;
        if (!lane.leased) lanes.delete(webhook);
        else if (lane.queue.length < depth / 2 && !dry) claimSoon();
      }
    })();
    attempts.add(attempt);
    void attempt.finally(() => attempts.delete(attempt));
  };

  const loop = async () => {
    let lastPurge = 0;
    while (!stopping) {
      try {
        // The poll is the safety net: retries falling due, notifications lost with a connection.
        if (idle.due()) fanOutWanted = claimWanted = true;
        if (fanOutWanted) {
          fanOutWanted = false;
          const events = await task.fanOut(FAN_OUT_BATCH);
          if (events === FAN_OUT_BATCH) fanOutWanted = true;
          if (events) claimWanted = true;
        }
        const room = maxLeased - leased;
        if (claimWanted && room > 0) {
          claimWanted = false;
          const heldBack = rate.heldBack();
          for (const [webhook, until] of slowUntil) if (until < Date.now()) slowUntil.delete(webhook);
          const slow = [...slowUntil.keys()];
          const claimed = await task.claim(room, { heldBack, slow, depth });
          const leasedAt = Date.now();
          for (const delivery of claimed) {
            laneOf(delivery.webhook_id).queue.push({ delivery, leasedAt });
            laneOf(delivery.webhook_id).leased++;
            leased++;
          }
          dry = claimed.length === 0;
          if (claimed.length === room) claimWanted = true;
          pump();
        }
        if (Date.now() - lastPurge > PURGE_EVERY_MS) {
          lastPurge = Date.now();
          const purged = await task.purge();
          if (purged) logger.info({ purged }, 'old webhook deliveries purged');
        }
      } catch (err) {
        if (stopping) break;
        logger.error({ err }, 'worker step failed; retrying');
        await sleep(1_000);
      }
      const more = fanOutWanted || (claimWanted && leased < maxLeased);
      if (!more && !stopping) await idle.sleep();
    }
  };
  const running = loop();
  const feedbackRequests = await startFeedbackRequests(deps);
  const caseOutbox = await startCaseOutbox(deps);
  const accountMail = await startAccountMail(deps);
  logger.info({ workerId, concurrency: config.workers }, 'workers started');

  return {
    get inFlight() {
      return started;
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      clearTimeout(soon);
      nudge();
      await running;
      // Leased but not started: given back at once, for any process. Those waiting for a rate token give theirs back.
      const notStarted = [...lanes.values()].flatMap((lane) => lane.queue.splice(0).map((item) => item.delivery.id));
      await task.release(notStarted).catch((err) => logger.warn({ err }, 'could not give back leases; they expire by themselves'));
      await Promise.allSettled([...attempts]);
      await feedbackRequests.stop();
      await caseOutbox.stop();
      await accountMail.stop();
      sender.close();
      await listener.stop();
      logger.info({ givenBack: notStarted.length }, 'workers stopped');
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
