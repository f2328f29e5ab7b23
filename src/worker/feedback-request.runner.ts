import { startOutboxRunner, type OutboxLoop, type OutboxRunnerDeps } from './outbox.loop.js';
import { FEEDBACK_WORK_CHANNEL, nextRequestDue, requeueUnsentRequests, FeedbackRequestTask, type FeedbackSenders } from '../modules/flow/index.js';
import { configuredSenders } from './senders.js';

export type FeedbackRequestWorkers = OutboxLoop;

const CONCURRENCY = 16;
/** Every order that queues a request wakes the loop: under a burst of orders, lease at most once per this many ms. */
const MIN_CLAIM_GAP_MS = 20;

/**
 * Runs due feedback requests (send, reminder, expiry) from the feedback_request table itself on the outbox loop
 * (outbox.loop.ts), the same design as webhook deliveries. `clock` is injectable so quiet hours can be tested.
 */
export async function startFeedbackRequests(deps: OutboxRunnerDeps & { senders?: FeedbackSenders }): Promise<FeedbackRequestWorkers> {
  const logger = deps.logger.child({ component: 'feedback-requests' });
  const senders = deps.senders ?? configuredSenders(deps.config.feedback, deps.orm);
  if (!senders.mail)
    logger.warn('no e-mail sender: set SMTP_URL (or MAIL_OUTBOX=dev to try it locally), or feedback requests by e-mail end failed until it is set');
  if (!senders.sms) logger.warn('no SMS sender: set TWILIO_* or SMS_GATEWAY_URL, or feedback requests by SMS end failed until one is set');
  return startOutboxRunner(
    { ...deps, logger },
    {
      tag: 'fr',
      // Those that failed for want of a sender go now, through the queue, while their flow's window is open.
      requeue: (senders.mail || senders.sms) && {
        due: () => requeueUnsentRequests(deps.orm.em.fork()),
        said: 'feedback requests that found no sender are due again',
      },
      task: (basics) => new FeedbackRequestTask(deps.orm, senders, { ...basics, surveyUrl: deps.config.surveyUrl, sending: deps.services.sending }),
      loop: {
        name: 'feedback request workers',
        channel: FEEDBACK_WORK_CHANNEL,
        due: nextRequestDue,
        concurrency: CONCURRENCY,
        minClaimGapMs: MIN_CLAIM_GAP_MS,
      },
      close: () => senders.mail?.close(),
    },
  );
}
