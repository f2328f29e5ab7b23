import Router from '@koa/router';
import type { Context } from 'koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import { escapeHtml, pageHeaders, sendHtml } from '../http/html.js';
import { businessOfLink, openRequest, unsubscribeByToken } from '../modules/flow/index.js';
import { readBrand, type GuestBrand } from '../modules/business/index.js';
import { surveyUrl } from '../modules/survey/index.js';
import { frameFor } from './guest.frame.js';
import { guestCsp, messagePage, type Frame } from './guest.pages.js';

/** A link's pages: the business's face when the link is known (its colour's style allowed by the policy). */
function linkFrame(ctx: Context, brand: GuestBrand | null = null, switcher = true): Frame {
  pageHeaders(ctx, guestCsp(brand));
  return frameFor(ctx, ctx.path, { brand, switcher });
}

/**
 * The short links of feedback requests (issue 16): `GET /r/{token}` marks the request opened and sends the guest to
 * the survey page with the order and location filled in; `/r/{token}/unsubscribe` is the opt-out (a page with a
 * button, and the RFC 8058 one-click POST mail clients send). The token is the only key: no personal data in a URL.
 */
export function feedbackLinkRoutes(deps: { orm: MikroORM }): Router {
  const router = new Router();

  router.get('/r/:token', async (ctx) => {
    const link = await openRequest(deps.orm.em.fork(), ctx.params.token);
    const page = linkFrame(ctx);
    if (!link) return sendHtml(ctx, 404, messagePage(page, page.t.notFoundTitle, page.t.notFoundBody));
    const params = new URLSearchParams({ 'custom.customOrderId': link.externalOrderId });
    if (link.externalLocationId) params.set('custom.customLocationId', link.externalLocationId);
    if (link.channel) params.set('ch', link.channel);
    let query = params.toString();
    if (link.locationMetadata) query += `&location:metadata=${encodeURIComponent(link.locationMetadata)}`;
    // Relative: the link itself is served at SURVEY_URL, where the survey pages are too.
    ctx.redirect(`${surveyUrl('', link.business, link.survey)}?${query}`);
  });

  router.get('/r/:token/unsubscribe', async (ctx) => {
    const em = deps.orm.em.fork();
    const business = await businessOfLink(em, ctx.params.token);
    const page = linkFrame(ctx, business ? await readBrand(em, business) : null);
    if (!business) return sendHtml(ctx, 404, messagePage(page, page.t.notFoundTitle, page.t.notFoundBody));
    const form = `\n<form method="post"><button type="submit">${escapeHtml(page.t.unsubscribeButton)}</button></form>`;
    sendHtml(ctx, 200, messagePage(page, page.t.unsubscribeTitle, page.t.unsubscribeBody, form));
  });

  // The page's button and mail clients' one-click unsubscribe (List-Unsubscribe-Post) alike: the token is the authority.
  router.post('/r/:token/unsubscribe', async (ctx) => {
    const em = deps.orm.em.fork();
    const business = await unsubscribeByToken(em, ctx.params.token);
    const page = linkFrame(ctx, business ? await readBrand(em, business) : null, false);
    if (!business) return sendHtml(ctx, 404, messagePage(page, page.t.notFoundTitle, page.t.notFoundBody));
    sendHtml(ctx, 200, messagePage(page, page.t.unsubscribedTitle, page.t.unsubscribedBody));
  });
  return router;
}
