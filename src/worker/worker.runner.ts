import type { MikroORM } from '@mikro-orm/postgresql';
import { PgListener } from '../kit/signals/pg-listener.js';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { HttpSender } from '../senders/http.sender.js';
import {
  DELIVERY_LIMITS,
  WebhookDeliveryTask,
  type ClaimedDelivery,
  type Lanes,
  DELIVERIES_DUE_CHANNEL,
  fanOutDue,
  nextDeliveryDue,
} from '../modules/webhook/index.js';
import { RateLimiter } from './rate.limiter.js';
import { DueClock, DuePoll, Sleeper } from './due.poll.js';
import { startFeedbackRequests } from './feedback-request.runner.js';
import { startCaseOutbox } from './case-outbox.runner.js';
import { startTextAnalysis } from './text-analysis.runner.js';
import { startAccountMail } from './account-mail.runner.js';
import { startAlertConfirmations } from './alert-confirmation.runner.js';
import { workerIdOf } from './outbox.loop.js';
import { startPartitionMaintenance, type PartitionMaintenance } from './partition.runner.js';
import { WEBHOOK_WORK_CHANNEL } from '../modules/event/index.js';
import type { Services } from '../kit/graphql/context.js';
import { compose } from '../compose.js';

export interface Workers {
  /** Stops leasing, lets the attempts in flight finish (at most their timeout) and gives back what did not start. */
  stop(): Promise<void>;
  /** Attempts in flight now. */
  readonly inFlight: number;
}

const FAN_OUT_BATCH = 500;
const CLAIM_GATHER_MS = 3;
/**
 * A fan-out at most this often: events committed meanwhile go together in the next one (one statement, one lease for
 * all their deliveries), while the first event after a quiet spell goes at once.
 */
const FAN_OUT_GAP_MS = 50;
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
 * A LISTEN on `webhook_work` (told after the commit of an event pending fan-out: kit/signals/signals.ts) wakes it at once.
 *
 * Each webhook is a lane: its deliveries are leased a batch ahead (one claim for many attempts), started as its
 * in-flight cap and rate allow, and each attempt's slot frees when the receiver has answered; the outcome is written
 * afterwards, a batch at a time. One slow webhook fills only its own lane.
 */
/** `services`: the process's composition (src/compose.ts), shared with its app; composed from `config` when absent. */
export async function startWorkers(deps: {
  orm: MikroORM;
  logger: Logger;
  config: Pick<Config, 'workers' | 'webhooks' | 'publicUrl' | 'surveyUrl' | 'feedback' | 'eventRetentionDays' | 'sending'>;
  services?: Services;
}): Promise<Workers> {
  const { orm, config } = deps;
  const services = deps.services ?? compose(config);
  const logger = deps.logger.child({ component: 'worker' });
  const sender = new HttpSender({
    timeoutMs: DELIVERY_LIMITS.timeoutMs,
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
    userAgent: 'feedback-service-webhooks/1 (+https://www.standardwebhooks.com)',
    maxStoredBytes: DELIVERY_LIMITS.storedResponseBytes,
  });
  const workerId = workerIdOf();
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
  // What the next turn of the loop should do: fan out (an event committed) and/or lease (a lane ran low, a retry's
  // time came). Idle, neither: the loop sleeps until a notification, a known due time or the look at every queue
  // (one statement for all of this process's queues, due.poll.ts) says there is work.
  const sleeper = new Sleeper();
  const fanOut = new DueClock(sleeper, Date.now, { ms: FAN_OUT_GAP_MS });
  const deliveries = new DueClock(sleeper);
  const poll = new DuePoll(orm, logger);
  poll.add(fanOutDue, fanOut);
  poll.add(nextDeliveryDue, deliveries);
  // The last claim found nothing due: lanes running low need not ask again until new work is announced.
  let dry = false;
  let soon: NodeJS.Timeout | undefined;
  // Lanes run low one attempt at a time: gather for a few ms, then lease once for all of them.
  const claimSoon = () => {
    soon ??= setTimeout(() => ((soon = undefined), deliveries.wake()), CLAIM_GATHER_MS);
  };

  // Woken after each commit of an event pending fan-out (the fan-out), or of deliveries made due (a redelivery, a test,
  // a fan-out's leftovers: a claim), in any process; while the connection is lost (it reconnects), the look at every
  // queue still finds the work.
  const workCommitted = (channel: string) => (channel === WEBHOOK_WORK_CHANNEL ? fanOut : deliveries).wake();
  const listener = new PgListener(
    orm,
    [WEBHOOK_WORK_CHANNEL, DELIVERIES_DUE_CHANNEL],
    { notification: workCommitted, ready: () => poll.soon() },
    logger,
    'webhook workers',
  );
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
          if (!stopping) deliveries.wake();
          return;
        }
        const { outcome, recorded } = await task.attempt(item.delivery);
        if (outcome.durationMs > SLOW_MS || outcome.error === 'timeout' || outcome.error === 'connect') slowUntil.set(webhook, Date.now() + SLOW_FOR_MS);
        else slowUntil.delete(webhook);
        freeSlot();
        // Its retry, if any, falls due then (another process may take it: this one claims at that time anyway).
        const retryAt = await recorded;
        if (retryAt) deliveries.dueAt(retryAt.getTime());
      } catch (err) {
        logger.error({ err, delivery: item.delivery.id }, 'webhook attempt could not be recorded');
      } finally {
        freeSlot();
        lane.leased--;
        leased--;
        if (!lane.leased) lanes.delete(webhook);
        else if (lane.queue.length < depth / 2 && !dry) claimSoon();
        // Room again, maybe: a loop that had none looks whether a claim is wanted.
        sleeper.poke();
      }
    })();
    attempts.add(attempt);
    void attempt.finally(() => attempts.delete(attempt));
  };

  // Told of the rows the loop writes (deliveries fanned out and leased), so their tables' statistics keep up.
  let partitions: PartitionMaintenance | undefined;
  /** What the lanes can take now, as a lease asks it: up to `room` deliveries in all. */
  const lanesNow = (room: number): Lanes => {
    for (const [webhook, until] of slowUntil) if (until < Date.now()) slowUntil.delete(webhook);
    const held = Object.fromEntries([...lanes].map(([webhook, lane]) => [webhook, lane.leased]));
    return { limit: room, heldBack: rate.heldBack(), slow: [...slowUntil.keys()], depth, held };
  };
  /** Leased deliveries into their lanes, and started as the caps allow. */
  const take = (claimed: ClaimedDelivery[]) => {
    const leasedAt = Date.now();
    for (const delivery of claimed) {
      const lane = laneOf(delivery.webhook_id);
      lane.queue.push({ delivery, leasedAt });
      lane.leased++;
      leased++;
    }
    pump();
  };
  const loop = async () => {
    while (!stopping) {
      try {
        if (fanOut.take()) {
          // What it cannot lease, it tells every process's claim of (this one's too: webhook_deliveries).
          const { events, made, leased: born } = await task.fanOut(FAN_OUT_BATCH, lanesNow(maxLeased - leased));
          fanOut.claimed(events, FAN_OUT_BATCH);
          partitions?.wrote(made);
          take(born);
        }
        const room = maxLeased - leased;
        if (room > 0 && deliveries.take()) {
          const ask = lanesNow(room);
          const claimed = await task.claim(ask);
          partitions?.wrote(claimed.length);
          take(claimed);
          dry = claimed.length === 0;
          deliveries.claimed(claimed.length, room);
          // A webhook out of tokens got nothing this time: its deliveries are due again when a token is back.
          if (ask.heldBack.length && claimed.length < room) deliveries.dueAt(Date.now() + Math.ceil(1_000 / config.webhooks.ratePerSecond));
        }
      } catch (err) {
        if (stopping) break;
        logger.error({ err }, 'worker step failed; retrying');
        await sleep(1_000);
        fanOut.failed();
        deliveries.failed();
      }
      if (stopping) break;
      const room = leased < maxLeased;
      if (!fanOut.ready() && !(room && deliveries.ready())) await sleeper.sleep(Math.min(fanOut.idleFor(), room ? deliveries.idleFor() : Infinity));
    }
  };
  const running = loop();
  // One look at every queue of the process (these and the outbox tables'): at start, then as the safety poll.
  const shared = { ...deps, services, poll };
  const feedbackRequests = await startFeedbackRequests(shared);
  const caseOutbox = await startCaseOutbox(shared);
  const accountMail = await startAccountMail(shared);
  const alertConfirmations = await startAlertConfirmations(shared);
  const textAnalysis = await startTextAnalysis(shared);
  poll.start();
  // Old events and deliveries age out by the week (replacing a row-by-row purge of deliveries).
  partitions = startPartitionMaintenance(deps);
  logger.info({ workerId, concurrency: config.workers }, 'workers started');

  return {
    get inFlight() {
      return started;
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      clearTimeout(soon);
      poll.stop();
      sleeper.poke();
      await running;
      // Leased but not started: given back at once, for any process. Those waiting for a rate token give theirs back.
      const notStarted = [...lanes.values()].flatMap((lane) => lane.queue.splice(0).map((item) => item.delivery.id));
      await task.release(notStarted).catch((err) => logger.warn({ err }, 'could not give back leases; they expire by themselves'));
      await Promise.allSettled([...attempts]);
      await task.releaseWebhooks().catch((err) => logger.warn({ err }, 'could not give back the webhooks held; their leases expire by themselves'));
      await feedbackRequests.stop();
      await caseOutbox.stop();
      await accountMail.stop();
      await alertConfirmations.stop();
      await textAnalysis.stop();
      await partitions.stop();
      sender.close();
      await listener.stop();
      logger.info({ givenBack: notStarted.length }, 'workers stopped');
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
