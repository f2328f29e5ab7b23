import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { startOutboxLoop, type OutboxLoop } from './outbox.loop.js';
import { FEEDBACK_WORK_CHANNEL, nextRequestDue, requeueUnsentRequests, FeedbackRequestTask, type FeedbackSenders } from '../modules/flow/index.js';
import type { DuePoll } from './due.poll.js';
import type { Services } from '../kit/graphql/context.js';
import { configuredSenders } from './senders.js';

export type FeedbackRequestWorkers = OutboxLoop;

const CONCURRENCY = 16;
/** Every order that queues a request wakes the loop: under a burst of orders, lease at most once per this many ms. */
const MIN_CLAIM_GAP_MS = 20;

/**
 * Runs due feedback requests (send, reminder, expiry) from the feedback_request table itself on the outbox loop
 * (outbox.loop.ts), the same design as webhook deliveries. `clock` is injectable so quiet hours can be tested.
 */
export async function startFeedbackRequests(deps: {
  orm: MikroORM;
  logger: Logger;
  config: Pick<Config, 'surveyUrl' | 'feedback'>;
  services: Services;
  clock?: () => Date;
  senders?: FeedbackSenders;
  /** The process's look at every queue (worker.runner.ts); alone, the loop looks for its own. */
  poll?: DuePoll;
}): Promise<FeedbackRequestWorkers> {
  const logger = deps.logger.child({ component: 'feedback-requests' });
  const senders = deps.senders ?? configuredSenders(deps.config.feedback, deps.orm);
  if (!senders.mail)
    logger.warn('no e-mail sender: set SMTP_URL (or MAIL_OUTBOX=dev to try it locally), or feedback requests by e-mail end failed until it is set');
  if (!senders.sms) logger.warn('no SMS sender: set TWILIO_* or SMS_GATEWAY_URL, or feedback requests by SMS end failed until one is set');
  // Those that failed for want of a sender go now, through the queue, while their flow's window is open.
  const requeued = senders.mail || senders.sms ? await requeueUnsentRequests(deps.orm.em.fork()) : 0;
  if (requeued) logger.info({ requeued }, 'feedback requests that found no sender are due again');
  const workerId = `${os.hostname().slice(0, 30)}:${process.pid}:fr:${randomBytes(4).toString('hex')}`;
  const task = new FeedbackRequestTask(deps.orm, senders, {
    surveyUrl: deps.config.surveyUrl,
    workerId,
    clock: deps.clock ?? (() => new Date()),
    logger,
    sending: deps.services.sending,
  });
  const loop = await startOutboxLoop(task, {
    name: 'feedback request workers',
    channel: FEEDBACK_WORK_CHANNEL,
    due: nextRequestDue,
    orm: deps.orm,
    logger,
    concurrency: CONCURRENCY,
    minClaimGapMs: MIN_CLAIM_GAP_MS,
    poll: deps.poll,
    clock: deps.clock,
  });
  return {
    wake: loop.wake,
    async stop() {
      await loop.stop();
      senders.mail?.close();
    },
  };
}
