import Router from '@koa/router';
import type { Context } from 'koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import { pageHeaders, sendHtml } from '../http/html.js';
import { openRequest, unsubscribeByToken } from '../modules/flow/feedback-request.service.js';
import { surveyUrl } from '../modules/survey/survey-link.js';
import { LANGUAGES } from './messages/index.js';
import { GUEST_CSP, messagePage, type Frame } from './guest.pages.js';

const frame: Frame = { lang: 'en', dir: 'ltr', t: LANGUAGES.en.messages, languages: [] };
const headers = (ctx: Context) => pageHeaders(ctx, GUEST_CSP);

/**
 * The short links of feedback requests (issue 16): `GET /r/{token}` marks the request opened and sends the guest to
 * the survey page with the order and location filled in; `/r/{token}/unsubscribe` is the opt-out (a page with a
 * button, and the RFC 8058 one-click POST mail clients send). The token is the only key: no personal data in a URL.
 */
export function feedbackLinkRoutes(deps: { orm: MikroORM }): Router {
  const router = new Router();

  router.get('/r/:token', async (ctx) => {
    const link = await openRequest(deps.orm.em.fork(), ctx.params.token);
    headers(ctx);
    if (!link) return sendHtml(ctx, 404, messagePage(frame, frame.t.notFoundTitle, frame.t.notFoundBody));
    const params = new URLSearchParams({ 'custom.customOrderId': link.externalOrderId });
    if (link.externalLocationId) params.set('custom.customLocationId', link.externalLocationId);
    if (link.channel) params.set('ch', link.channel);
    let query = params.toString();
    if (link.locationMetadata) query += `&location:metadata=${encodeURIComponent(link.locationMetadata)}`;
    // Relative: the link itself is served at SURVEY_URL, where the survey pages are too.
    ctx.redirect(`${surveyUrl('', link.business, link.survey)}?${query}`);
  });

  router.get('/r/:token/unsubscribe', async (ctx) => {
    headers(ctx);
    const form = `\n<form method="post"><button type="submit">Unsubscribe</button></form>`;
    sendHtml(ctx, 200, messagePage(frame, 'Stop feedback requests?', 'You will not be asked for feedback again by this business on this channel.', form));
  });

  // The page's button and mail clients' one-click unsubscribe (List-Unsubscribe-Post) alike: the token is the authority.
  router.post('/r/:token/unsubscribe', async (ctx) => {
    const done = await unsubscribeByToken(deps.orm.em.fork(), ctx.params.token);
    headers(ctx);
    if (!done) return sendHtml(ctx, 404, messagePage(frame, frame.t.notFoundTitle, frame.t.notFoundBody));
    sendHtml(ctx, 200, messagePage(frame, 'Unsubscribed', 'You will not receive feedback requests from this business on this channel again.'));
  });
  return router;
}
