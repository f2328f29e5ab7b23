import type { Context } from 'koa';
import type { Logger } from 'pino';
import { sendHtml } from '../http/html.js';
import { toAppError } from '../shared/error-answer.js';
import { messagePage, type Frame } from './guest.pages.js';

/**
 * What a guest sees when a page of theirs fails: a database busy for now (no connection in time) is a 503 "try again
 * in a moment" with Retry-After, anything else a logged 500 with the same words; always a page in their language,
 * never JSON. Refusals the page expects (an expired link) are each route's to word before this.
 */
export function guestFailurePage(ctx: Context, err: unknown, frame: Frame, log: { logger: Logger; what: string; path: string }) {
  const known = toAppError(err);
  if (known?.code === 'unavailable') {
    ctx.set(known.headers ?? {});
    return sendHtml(ctx, 503, messagePage(frame, frame.t.errorTitle, frame.t.errorBody));
  }
  log.logger.error({ err, requestId: ctx.state.requestId, path: log.path }, log.what);
  sendHtml(ctx, 500, messagePage(frame, frame.t.errorTitle, frame.t.errorBody));
}
