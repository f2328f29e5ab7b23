import Router from '@koa/router';
import type { Context } from 'koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import { escapeHtml, pageHeaders, sendHtml } from '../http/html.js';
import { businessOfLink, openRequest, unsubscribeByToken } from '../modules/flow/feedback-request.service.js';
import { readBrand, type GuestBrand } from '../modules/business/brand.read.js';
import { surveyUrl } from '../modules/survey/survey-link.js';
import { chooseLanguage, LANGUAGES } from './messages/index.js';
import { GUEST_CSP, guestCsp, messagePage, type Frame } from './guest.pages.js';

const frame: Frame = { lang: 'en', dir: 'ltr', t: LANGUAGES.en.messages, languages: [] };
const headers = (ctx: Context) => pageHeaders(ctx, GUEST_CSP);

const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;

/**
 * The unsubscribe pages as the survey pages are: the business's brand (its colour's style allowed by the policy), in
 * the guest's language (`lang=`, else Accept-Language), with links to the page in the others when `switcher` is set.
 */
function brandedFrame(ctx: Context, brand: GuestBrand | null, switcher: boolean): Frame {
  pageHeaders(ctx, guestCsp(brand));
  const lang = chooseLanguage(ctx, first(ctx.query.lang));
  const { messages, dir } = LANGUAGES[lang];
  const languages = switcher
    ? Object.entries(LANGUAGES)
        .filter(([code]) => code !== lang)
        .map(([code, l]) => ({ code, name: l.messages.languageName, href: `${ctx.path}?lang=${encodeURIComponent(code)}` }))
    : [];
  return { lang, dir, t: messages, brand, languages };
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
    const em = deps.orm.em.fork();
    const business = await businessOfLink(em, ctx.params.token);
    const page = brandedFrame(ctx, business ? await readBrand(em, business) : null, business != null);
    if (!business) return sendHtml(ctx, 404, messagePage(page, page.t.notFoundTitle, page.t.notFoundBody));
    const form = `\n<form method="post"><button type="submit">${escapeHtml(page.t.unsubscribeButton)}</button></form>`;
    sendHtml(ctx, 200, messagePage(page, page.t.unsubscribeTitle, page.t.unsubscribeBody, form));
  });

  // The page's button and mail clients' one-click unsubscribe (List-Unsubscribe-Post) alike: the token is the authority.
  router.post('/r/:token/unsubscribe', async (ctx) => {
    const em = deps.orm.em.fork();
    const business = await unsubscribeByToken(em, ctx.params.token);
    const page = brandedFrame(ctx, business ? await readBrand(em, business) : null, false);
    if (!business) return sendHtml(ctx, 404, messagePage(page, page.t.notFoundTitle, page.t.notFoundBody));
    sendHtml(ctx, 200, messagePage(page, page.t.unsubscribedTitle, page.t.unsubscribedBody));
  });
  return router;
}
