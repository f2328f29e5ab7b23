import type { Context } from 'koa';

/** Every value a server-rendered page shows goes through this: text and attribute values alike. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '').replace(/[&<>"'`=]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A server-rendered page of ours (not the guest's, which carry their language and brand): `body` in its main. */
export function htmlPage(title: string, style: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<style>${style}</style>
</head>
<body><main>
${body}
</main></body>
</html>`;
}

/**
 * The headers of every server-rendered page: never cached, never framed, never sniffed, with the page family's own
 * Content-Security-Policy. `Referrer-Policy: same-origin`, not no-referrer: query strings (client ids, state, survey
 * link parameters) never leave for other sites, while our own form posts keep their real Origin (under no-referrer
 * a browser posts `Origin: null`, which postFromOwnPages refuses).
 */
export function pageHeaders(ctx: Context, contentSecurityPolicy: string) {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Content-Security-Policy', contentSecurityPolicy);
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('X-Frame-Options', 'DENY');
}

export function sendHtml(ctx: Context, status: number, page: string) {
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = page;
}

/**
 * A form post from a browser counts only with its word that it came from our own pages.
 * - `Sec-Fetch-Site` (set by the browser, unforgeable by a page) is the first witness: only `same-origin` passes.
 * - Else `Origin`: ours passes, any other site's is refused.
 * - `Origin: null` without `Sec-Fetch-Site` is refused: an opaque origin is what a sandboxed frame or a data: page on
 *   another site posts with, and nothing then says where the form came from. A browser whose privacy setting sends
 *   `null` for our own forms still sends `Sec-Fetch-Site: same-origin`, which is trusted above.
 * - Neither header: not a browser (an HTTP client, a test): the caller's double-submit token alone decides.
 */
export function postFromOwnPages(ctx: Context, publicUrl: string): boolean {
  const site = ctx.get('sec-fetch-site');
  if (site) return site === 'same-origin';
  const origin = ctx.get('origin');
  if (!origin) return true;
  // (Koa 3's ctx.origin echoes the Origin header: compare with our own protocol and host instead.)
  return origin === `${ctx.protocol}://${ctx.host}` || origin === new URL(publicUrl).origin;
}
