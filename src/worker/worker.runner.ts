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

  // A dedicated connection for LISTEN: a pooled one would be handed to queries.
  const listener = new pg.Client(pool.options as pg.ClientConfig);
  listener.on('notification', nudge);
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
    while (!stopping) {
      let busy = false;
      try {
        busy = (await task.fanOut()) > 0;
        const room = config.workers - inFlight.size;
        const claimed = await task.claim(room, rate.heldBack());
        for (const delivery of claimed) {
          const p = run(delivery).finally(() => {
            inFlight.delete(p);
            nudge(); // room for more
          });
          inFlight.add(p);
        }
        busy ||= claimed.length > 0 && claimed.length === room;
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
      if (!busy && !stopping) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, IDLE_POLL_MS);
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
