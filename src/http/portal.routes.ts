import fs from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Context } from 'koa';
import { pageHeaders } from './html.js';

/**
 * The business portal's door: the files Vite built into dist/portal/ (scripts/build-portal.js), nothing else. The app
 * itself talks only to /graphql and the OAuth endpoints, like any partner's dashboard.
 * - /portal/assets/*: content-hashed names, so cached for a year and never revalidated.
 * - every other /portal path: index.html (the app routes in the browser), never cached, so a deploy is seen at once.
 * The policy allows our own scripts, styles and API calls only: no inline script, no other origin.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** dist/portal/, whether this file runs from the sources (src/http) or from the build (dist/src/http). */
function builtPortalDir(): string {
  const up = path.resolve(import.meta.dirname, '../..');
  return path.basename(up) === 'dist' ? path.join(up, 'portal') : path.join(up, 'dist', 'portal');
}

export function portalRoutes(options: { publicUrl: string; dir?: string }) {
  const router = new Router();
  const dir = options.dir ?? builtPortalDir();
  const assets = path.join(dir, 'assets');
  const indexFile = path.join(dir, 'index.html');
  const publicOrigin = new URL(options.publicUrl).origin;

  router.get('/portal/assets/:file', async (ctx) => {
    const name = ctx.params.file;
    // One path segment of a built file's characters: nothing can climb out of assets/.
    const file = /^[A-Za-z0-9_.-]+$/.test(name) && !name.startsWith('.') ? path.join(assets, name) : undefined;
    const stat = file ? await fs.promises.stat(file).catch(() => undefined) : undefined;
    if (!file || !stat?.isFile()) return;
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = TYPES[path.extname(name)] ?? 'application/octet-stream';
    ctx.length = stat.size;
    ctx.body = fs.createReadStream(file);
  });

  const page = async (ctx: Context) => {
    // The sign-in redirect is registered for PUBLIC_URL only: reached by another name, move to that one first.
    if (`${ctx.protocol}://${ctx.host}` !== publicOrigin) return ctx.redirect(`${publicOrigin}${ctx.url}`);
    const html = await fs.promises.readFile(indexFile, 'utf8').catch(() => undefined);
    pageHeaders(ctx, CSP);
    if (!html) {
      ctx.status = 503;
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = 'The portal is not built: run npm start (or npm run build).';
      return;
    }
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = html;
  };
  router.get('/portal', page);
  router.get('/portal/*rest', page);
  return router;
}
