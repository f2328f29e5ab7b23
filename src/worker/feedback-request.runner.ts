import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { PgListener } from '../kit/pg-listener.js';
import { IdlePoll } from './idle.poll.js';
import { FeedbackRequestTask, type FeedbackSenders } from '../modules/flow/feedback-request.task.js';
import { SmtpMailer } from '../senders/mail.sender.js';
import { GatewaySms, TwilioSms } from '../senders/sms.sender.js';
import { WEBHOOK_WORK_CHANNEL } from '../modules/event/event.signal.js';

export interface FeedbackRequestWorkers {
  stop(): Promise<void>;
}

const IDLE_POLL_MS = 250;
const CONCURRENCY = 16;
/** An event of a business with webhooks notifies webhook_work: under a burst of its orders, lease at most once per this many ms. */
const MIN_CLAIM_GAP_MS = 20;

/** The senders the configuration names; a channel without one ends its requests `failed` with the reason. */
export function feedbackSenders(settings: Config['feedback']): FeedbackSenders {
  return {
    mail: settings.smtpUrl ? new SmtpMailer(settings.smtpUrl, settings.mailFrom) : undefined,
    sms: settings.twilio ? new TwilioSms(settings.twilio) : settings.smsGatewayUrl ? new GatewaySms(settings.smsGatewayUrl) : undefined,
  };
}

/**
 * Runs due feedback requests (send, reminder, expiry) from the feedback_request table itself, the same outbox
 * design as webhook deliveries: rows leased with FOR UPDATE SKIP LOCKED, so any number of processes share the work
 * and none loses or doubles a request. Woken by the `webhook_work` notification an event insert raises when its
 * business has a webhook (a new request records feedbackrequest.created), else by a poll. `clock` is injectable so quiet hours can be tested.
 */
export async function startFeedbackRequests(deps: {
  orm: MikroORM;
  logger: Logger;
  config: Pick<Config, 'surveyUrl' | 'feedback'>;
  clock?: () => Date;
  senders?: FeedbackSenders;
}): Promise<FeedbackRequestWorkers> {
  const logger = deps.logger.child({ component: 'feedback-requests' });
  const senders = deps.senders ?? feedbackSenders(deps.config.feedback);
  if (!senders.mail) logger.warn('no e-mail sender: set SMTP_URL, or feedback requests by e-mail end failed');
  if (!senders.sms) logger.warn('no SMS sender: set TWILIO_* or SMS_GATEWAY_URL, or feedback requests by SMS end failed');
  const workerId = `${os.hostname().slice(0, 30)}:${process.pid}:fr:${randomBytes(4).toString('hex')}`;
  const task = new FeedbackRequestTask(deps.orm, senders, { surveyUrl: deps.config.surveyUrl, workerId, clock: deps.clock ?? (() => new Date()), logger });
  const inFlight = new Set<Promise<void>>();
  let stopping = false;
  let wanted = true;
  const idle = new IdlePoll(IDLE_POLL_MS);
  const nudge = () => {
    wanted = true;
    idle.wake();
  };

  // Woken at once by a notification, and after a reconnection (whatever was missed meanwhile); polled otherwise.
  const listener = new PgListener(deps.orm, [WEBHOOK_WORK_CHANNEL], { notification: nudge, ready: nudge }, logger, 'feedback request workers (polling meanwhile)');
  await listener.start();

  const loop = async () => {
    let lastClaim = 0;
    while (!stopping) {
      try {
        if (idle.due()) wanted = true;
        const room = CONCURRENCY - inFlight.size;
        if (wanted && room > 0) {
          const gap = MIN_CLAIM_GAP_MS - (Date.now() - lastClaim);
          if (gap > 0) await new Promise((r) => setTimeout(r, gap));
          wanted = false;
          lastClaim = Date.now();
          const ids = await task.claim(room);
          for (const id of ids) {
            const p = task
              .run(id)
              .catch((err) => logger.error({ err, request: id }, 'feedback request step failed; its lease expires and it runs again'))
              .finally(() => {
                inFlight.delete(p);
                nudge();
              });
            inFlight.add(p);
          }
          if (ids.length === room) wanted = true;
        }
      } catch (err) {
        if (stopping) break;
        logger.error({ err }, 'feedback request worker step failed; retrying');
        await new Promise((r) => setTimeout(r, 1_000));
      }
      if (!(wanted && inFlight.size < CONCURRENCY) && !stopping) await idle.sleep();
    }
  };
  const running = loop();

  return {
    async stop() {
      if (stopping) return;
      stopping = true;
      idle.wake();
      await running;
      await Promise.allSettled([...inFlight]);
      senders.mail?.close();
      await listener.stop();
    },
  };
}
