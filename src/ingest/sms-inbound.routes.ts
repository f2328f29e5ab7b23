import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { AppError } from '../shared/errors.js';
import { smsInbound } from '../kit/metrics/metrics.js';
import { receiveGuestSms, stopGuestSms } from '../modules/case/index.js';
import type { SmsInboundAuth } from './sms-inbound.auth.js';

/** Replies that mean "stop" (the words carriers and Twilio honour). */
const STOP_WORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT']);

/** Twilio reads the answer as TwiML: an empty one sends nothing back to the guest. */
const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response></Response>';

/**
 * `POST /webhooks/sms/inbound`: where the SMS provider posts guests' texts, authenticated by SmsInboundAuth (Twilio's
 * signature, or a gateway's secret in a header). The text joins the one case thread it can be tied to, or is held for
 * the operator (modules/case/inbound-sms.*); a STOP also opts the number out of every business that texted or asked
 * it. Twilio's form fields (`From`, `Body`) and JSON (`{from, body}`) are both read.
 */
export function smsInboundRoutes(deps: { orm: MikroORM; logger: Logger; auth?: SmsInboundAuth }): Router {
  const router = new Router();
  router.post('/webhooks/sms/inbound', async (ctx) => {
    if (!deps.auth) throw new AppError('not_found', 'Inbound SMS is not configured (set TWILIO_* or SMS_INBOUND_SECRET)');
    await deps.auth.verify(ctx);
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const from = body.From ?? body.from;
    const text = body.Body ?? body.body;
    if (typeof from !== 'string' || typeof text !== 'string') {
      throw AppError.validation([{ field: typeof from !== 'string' ? 'from' : 'body', message: 'is required (From and Body, or from and body)' }]);
    }
    const stop = STOP_WORDS.has(text.trim().toUpperCase());
    // First, as it refuses a sender that is no phone number (400) before anything is kept.
    const businesses = stop ? await stopGuestSms(deps.orm.em.fork(), from) : 0;
    // The guest's words join the thread they answer (a STOP too: the restaurant sees why replies end); what joins
    // none is held for the operator, but a STOP, already acted on everywhere, is not.
    const received = await receiveGuestSms(deps.orm.em.fork(), from, text, { stop });
    smsInbound.inc({ outcome: 'joined' in received ? received.joined.by : 'held' in received ? 'held' : received.why });
    // Its id and why, never the number or the words: the operator reads those with `npm run admin -- held-sms`.
    if ('held' in received) deps.logger.info({ heldSms: received.held.id, reason: received.held.reason }, 'inbound SMS held for the operator');
    ctx.status = 200;
    if (deps.auth.provider === 'twilio') {
      ctx.type = 'text/xml';
      ctx.body = EMPTY_TWIML;
    } else {
      ctx.body = { data: { stop, businesses, held: 'held' in received }, object: 'smsinbound' };
    }
  });
  return router;
}
