import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import { pageHeaders, sendHtml } from './html.js';
import { newestMessages } from '../modules/dev-outbox/index.js';
import { devOutboxOffPage, devOutboxPage } from './dev-outbox.page.js';

const SHOWN = 100;
const CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * /portal/dev/outbox: what MAIL_OUTBOX=dev kept instead of sending. Open to whoever reaches the service, which is why
 * the outbox is refused in production (config.ts); without it the page says how to turn it on.
 */
export function devOutboxRoutes(deps: { orm: MikroORM; enabled: boolean }) {
  const router = new Router();
  router.get('/portal/dev/outbox', async (ctx) => {
    pageHeaders(ctx, CSP);
    if (!deps.enabled) return sendHtml(ctx, 404, devOutboxOffPage());
    sendHtml(ctx, 200, devOutboxPage(await newestMessages(deps.orm.em, SHOWN), SHOWN));
  });
  return router;
}
