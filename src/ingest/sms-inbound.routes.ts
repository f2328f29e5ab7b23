import { timingSafeEqual } from 'node:crypto';
import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import { AppError } from '../shared/errors.js';
import { bearerToken } from '../shared/bearer.js';
import { stopFromPhone } from '../modules/flow/feedback-request.service.js';
import { attachInboundSms } from '../modules/case/case-message.service.js';

/** Replies that mean "stop" (the words carriers and Twilio honour). */
const STOP_WORDS = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT']);

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * `POST /webhooks/sms/inbound`: where an SMS provider posts guests' replies. Verified by the shared secret
 * SMS_INBOUND_SECRET, as a bearer token or as `?secret=` (Twilio's webhooks cannot set headers). A STOP reply puts the
 * number on the opt-out list of every business that has asked it (or answered it from a case); every text, STOP too,
 * joins the thread of a case that texted the number (case-message.service.ts). Twilio's form fields (`From`, `Body`) and JSON
 * (`{from, body}`) are both read.
 */
export function smsInboundRoutes(deps: { orm: MikroORM; secret?: string }): Router {
  const router = new Router();
  router.post('/webhooks/sms/inbound', async (ctx) => {
    const given = bearerToken(ctx.get('authorization') || undefined) ?? (typeof ctx.query.secret === 'string' ? ctx.query.secret : undefined);
    if (!deps.secret) throw new AppError('not_found', 'Inbound SMS is not configured (SMS_INBOUND_SECRET)');
    if (!given || !same(given, deps.secret)) throw new AppError('unauthorized', 'Missing or wrong inbound SMS secret');
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const from = body.From ?? body.from;
    const text = body.Body ?? body.body;
    if (typeof from !== 'string' || typeof text !== 'string') {
      throw AppError.validation([{ field: typeof from !== 'string' ? 'from' : 'body', message: 'is required (From and Body, or from and body)' }]);
    }
    const stop = STOP_WORDS.has(text.trim().toUpperCase());
    // The guest's words join the thread of a case that texted them (a STOP too: the restaurant sees why replies end).
    const threads = await attachInboundSms(deps.orm.em.fork(), from, text);
    const businesses = stop ? await stopFromPhone(deps.orm.em.fork(), from, threads) : 0;
    ctx.status = 200;
    ctx.body = { data: { stop, businesses }, object: 'smsinbound' };
  });
  return router;
}
