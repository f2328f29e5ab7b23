import { createHash } from 'node:crypto';
import Router from '@koa/router';
import type { Context } from 'koa';

/**
 * The service's icon, for the portal, the guest pages and every other page (a browser asks for /favicon.ico when a
 * page names none): a speech bubble with a star, drawn here so the build needs no asset step and no page loads it
 * from another host.
 */
const FAVICON_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">' +
  '<rect width="32" height="32" rx="7" fill="#2446b8"/>' +
  '<path d="M8 9.5A2.5 2.5 0 0 1 10.5 7h11A2.5 2.5 0 0 1 24 9.5v8a2.5 2.5 0 0 1-2.5 2.5H15l-5 4.5V20h-.5A1.5 1.5 0 0 1 8 17.5z" fill="#fff"/>' +
  '<path d="M16 9.8l1.2 2.4 2.6.4-1.9 1.8.5 2.6-2.4-1.3-2.4 1.3.5-2.6-1.9-1.8 2.6-.4z" fill="#d97706"/>' +
  '</svg>';
const FAVICON_PATH = '/favicon.svg';
const ETAG = `"${createHash('sha256').update(FAVICON_SVG).digest('base64url').slice(0, 16)}"`;

export function faviconRoutes() {
  const router = new Router();
  const icon = (ctx: Context) => {
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('ETag', ETAG);
    if (ctx.get('If-None-Match') === ETAG) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'image/svg+xml';
    ctx.body = FAVICON_SVG;
  };
  router.get(FAVICON_PATH, icon);
  // Asked for by browsers on pages that link none (the API's HTML pages); an SVG there is drawn by them too.
  router.get('/favicon.ico', icon);
  return router;
}
