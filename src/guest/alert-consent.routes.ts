import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { escapeHtml as e, pageHeaders, sendHtml } from '../http/html.js';
import { answerConsent, consentOf, type Consent } from '../modules/alert/index.js';
import { format } from './messages/index.js';
import { frameFor } from './guest.frame.js';
import { guestFailurePage } from './guest.failure.js';
import { GUEST_CSP, messagePage, type Frame } from './guest.pages.js';

const PREFIX = '/alerts/';

/** A page of the confirmation's family: the guest pages' frame and policy, without any business's face. */
function frame(ctx: Context, switcher = true): Frame {
  pageHeaders(ctx, GUEST_CSP);
  return frameFor(ctx, ctx.path, { switcher });
}

/** The page for a recipient's answer so far, with the buttons that change it (each a POST: a GET changes nothing). */
function consentPage(page: Frame, token: string, c: Consent): string {
  const t = page.t;
  const values = { business: c.businessName, address: c.address };
  const button = (answer: 'confirm' | 'decline', label: string, secondary = false) =>
    `<form method="post" action="${e(`${PREFIX}${token}/${answer}`)}"><button type="submit"${secondary ? ' class="secondary"' : ''}>${e(label)}</button></form>`;
  const [title, body, buttons] =
    c.status === 'confirmed'
      ? [t.consentConfirmedTitle, t.consentConfirmedBody, button('decline', t.consentStop)]
      : c.status === 'declined'
        ? [t.consentDeclinedTitle, t.consentDeclinedBody, button('confirm', t.consentAfterAll, true)]
        : [t.consentAskTitle, t.consentAskBody, button('confirm', t.consentYes) + button('decline', t.consentNo, true)];
  return messagePage(page, format(title, values), format(body, values), `\n<div class="actions">${buttons}</div>`);
}

const notFound = (ctx: Context, page: Frame) => sendHtml(ctx, 404, messagePage(page, page.t.consentNotFoundTitle, page.t.consentNotFoundBody));

/**
 * The confirmation page of an outside alert recipient (issue 48): `GET /alerts/{token}` names the business and the
 * address and asks; `POST …/confirm` agrees, `POST …/decline` refuses for good (also a mail client's RFC 8058
 * one-click unsubscribe). The token, sent only to that address or number, is the only key. Every answer is a page;
 * routed before the body parser, as no answer reads a body (a mail client's one-click form is ignored).
 */
export function alertConsentRoutes(deps: { orm: MikroORM; logger: Logger }): { router: Router; pages: Middleware } {
  const router = new Router();

  router.get(`${PREFIX}:token`, async (ctx) => {
    const page = frame(ctx);
    const consent = await consentOf(deps.orm.em.fork(), ctx.params.token);
    if (!consent) return notFound(ctx, page);
    sendHtml(ctx, 200, consentPage(page, ctx.params.token, consent));
  });

  for (const [path, answer] of [
    ['confirm', 'confirmed'],
    ['decline', 'declined'],
  ] as const) {
    router.post(`${PREFIX}:token/${path}`, async (ctx) => {
      const page = frame(ctx, false);
      const consent = await answerConsent(deps.orm.em.fork(), ctx.params.token, answer);
      if (!consent) return notFound(ctx, page);
      sendHtml(ctx, 200, consentPage(page, ctx.params.token, consent));
    });
  }

  /** Everything else under /alerts/ (another path, another method) is the not-found page, and a failure a page too. */
  const pages: Middleware = async (ctx, next) => {
    if (!ctx.path.startsWith(PREFIX)) return next();
    try {
      await next();
      if (ctx.body == null) notFound(ctx, frame(ctx, false));
    } catch (err) {
      guestFailurePage(ctx, err, frame(ctx, false), { logger: deps.logger, what: 'alert confirmation page failed', path: '/alerts/:token' });
    }
  };

  return { router, pages };
}
