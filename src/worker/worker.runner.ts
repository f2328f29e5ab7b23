import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { MikroORM, PostgreSqlConnection } from '@mikro-orm/postgresql';
import pg from 'pg';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { HttpSender } from '../senders/http.sender.js';
import { DELIVERY_LIMITS, WebhookDeliveryTask, type ClaimedDelivery } from '../modules/webhook/webhook-delivery.task.js';
import { RateLimiter } from './rate.limiter.js';

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

/**
 * The job queue's runner in this process: fans recorded events out into deliveries and runs due deliveries, up to
 * `config.workers` attempts at once, at most 4 per webhook and its rate. The queue is the database itself
 * (event.fanout_pending, webhook_delivery.next_attempt_at): several processes share it with SKIP LOCKED leases.
 * A LISTEN on `webhook_work` (notified by the insert trigger) wakes it as soon as an event commits.
 */
export async function startWorkers(deps: { orm: MikroORM; logger: Logger; config: Pick<Config, 'workers' | 'webhooks' | 'publicUrl'> }): Promise<Workers> {
  const { orm, config } = deps;
  const logger = deps.logger.child({ component: 'worker' });
  const pool = (await (orm.em.getConnection() as PostgreSqlConnection).getNativeClient()) as pg.Pool;
  const sender = new HttpSender({
    timeoutMs: DELIVERY_LIMITS.timeoutMs,
    allowPrivateNetworks: config.webhooks.allowPrivateNetworks,
    userAgent: 'feedback-service-webhooks/1 (+https://www.standardwebhooks.com)',
    maxStoredBytes: DELIVERY_LIMITS.storedResponseBytes,
  });
  const workerId = `${os.hostname().slice(0, 30)}:${process.pid}:${randomBytes(4).toString('hex')}`;
  const task = new WebhookDeliveryTask(pool, orm, sender, config.webhooks, logger, workerId);
  const rate = new RateLimiter(config.webhooks.ratePerSecond);
  const inFlight = new Set<Promise<void>>();
  const waiting = new Set<string>();
  let stopping = false;
  let wake: (() => void) | undefined;
  const nudge = () => wake?.();
  // What the next turn of the loop should do: fan out (an event committed) and/or lease (room freed up).
  let fanOutWanted = true;
  let claimWanted = true;
  let soon: NodeJS.Timeout | undefined;
  // Attempts end one by one: gather the room they free for a few ms, then lease once for all of it.
  const claimSoon = () => {
    claimWanted = true;
    soon ??= setTimeout(() => ((soon = undefined), nudge()), CLAIM_GATHER_MS);
  };

  // A dedicated connection for LISTEN: a pooled one would be handed to queries.
  const listener = new pg.Client(pool.options as pg.ClientConfig);
  listener.on('notification', () => {
    fanOutWanted = true;
    nudge();
  });
  listener.on('error', (err) => logger.warn({ err }, 'worker notification connection lost; polling only'));
  await listener.connect().then(() => listener.query('listen webhook_work')).catch((err) => logger.warn({ err }, 'no LISTEN; polling only'));

  const run = async (delivery: ClaimedDelivery) => {
    waiting.add(delivery.id);
    try {
      await rate.take(delivery.webhook_id);
      if (stopping) return; // given back below, not attempted
      waiting.delete(delivery.id);
      await task.attempt(delivery);
    } catch (err) {
      logger.error({ err, delivery: delivery.id }, 'webhook attempt could not be recorded');
    } finally {
      waiting.delete(delivery.id);
    }
  };

  const loop = async () => {
    let lastPurge = 0;
    let lastPoll = 0;
    while (!stopping) {
      try {
        // The poll is the safety net: retries falling due, notifications lost with a connection.
        if (Date.now() - lastPoll >= IDLE_POLL_MS) {
          lastPoll = Date.now();
          fanOutWanted = claimWanted = true;
        }
        if (fanOutWanted) {
          fanOutWanted = false;
          const events = await task.fanOut(FAN_OUT_BATCH);
          if (events === FAN_OUT_BATCH) fanOutWanted = true;
          if (events) claimWanted = true;
        }
        const room = config.workers - inFlight.size;
        if (claimWanted && room > 0) {
          claimWanted = false;
          const claimed = await task.claim(room, rate.heldBack());
          for (const delivery of claimed) {
            const p = run(delivery).finally(() => {
              inFlight.delete(p);
              claimSoon();
            });
            inFlight.add(p);
          }
          if (claimed.length === room) claimWanted = true;
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
      const more = fanOutWanted || (claimWanted && inFlight.size < config.workers);
      if (!more && !stopping) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.max(0, IDLE_POLL_MS - (Date.now() - lastPoll)));
          wake = () => (clearTimeout(timer), resolve());
        });
        wake = undefined;
      }
    }
  };
  const running = loop();
  logger.info({ workerId, concurrency: config.workers }, 'workers started');

  return {
    get inFlight() {
      return inFlight.size;
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      clearTimeout(soon);
      nudge();
      await running;
      const notStarted = [...waiting];
      await task.release(notStarted).catch((err) => logger.warn({ err }, 'could not give back leases; they expire by themselves'));
      await Promise.allSettled([...inFlight]);
      sender.close();
      await listener.end().catch(() => {});
      logger.info({ givenBack: notStarted.length }, 'workers stopped');
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
