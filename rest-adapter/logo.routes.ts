import Router from '@koa/router';
import type { Context } from 'koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ApiLimit } from '../src/http/rate-limit/rate-limits.js';
import { noteWrite, type ContextFor, type GraphQLContext } from '../src/kit/graphql/context.js';
import { authChecker } from '../src/graphql/auth-checker.js';
import type { Scope } from '../src/auth/scopes.js';
import { AppError } from '../src/shared/errors.js';
import { presentBusiness, findLogo, setLogo, logoPath } from '../src/modules/business/index.js';
import { ImagePool } from './image.pool.js';

/** 512 KiB: a logo, not a photo album. */
const LOGO_MAX_BYTES = 512 * 1024;
/** Pixels a side at most: a header may promise a huge image in a few bytes (a decompression bomb). */
const LOGO_MAX_SIDE = 4096;
const ACCEPTED = ['image/png', 'image/jpeg', 'image/webp'];
/** Checking an image costs this many API units (weightOf: 100 a unit) on top of the request's one. */
const CHECK_COST = 20;

/** The body as bytes, refused (413) as soon as it passes `max`, whatever Content-Length said. */
async function readBody(ctx: Context, max: number): Promise<Buffer> {
  const declared = Number(ctx.get('content-length') || NaN);
  const tooLarge = () => new AppError('payload_too_large', `The logo is over ${max / 1024} KB: send a smaller image`);
  if (declared > max) throw tooLarge();
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > max) {
      ctx.req.resume(); // the rest is read and dropped: the answer can be sent
      throw tooLarge();
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, length);
}

/**
 * The business's logo (issue 36): `PUT /v2/businesses/{business}/logo` with a PNG, JPEG or WebP body (not JSON: its
 * own route, mounted before the JSON body parser), checked with the same token, tenant and scope (business:write) rules
 * as every API operation (the GraphQL auth checker itself), then decoded off the event loop (image.pool.ts). And
 * `GET /logos/{business}/{sha256}.{ext}`, public like the pages that show it, cached for ever: a new logo is a new
 * address.
 */
export function logoRoutes(deps: { orm: MikroORM; contextFor: ContextFor; limit?: ApiLimit }) {
  const router = new Router();
  const pool = new ImagePool();

  router.put('/v2/businesses/:business/logo', async (ctx) => {
    const business = ctx.params.business;
    const context = await deps.contextFor(ctx.state.requestId, ctx.get('authorization') || undefined, ctx.ip);
    // The API's own check (token, its business, the scope and the role's limits), as on every GraphQL operation.
    (authChecker as (data: { context: GraphQLContext; args: Record<string, unknown> }, scopes: Scope[]) => boolean)({ context, args: { business } }, [
      'business:write',
    ]);
    const charge = await deps.limit?.charge(context.auth, ctx.ip, 1 + CHECK_COST);
    if (charge) ctx.set(charge.headers);
    const declared = (ctx.get('content-type') || '').split(';')[0].trim().toLowerCase();
    if (!ACCEPTED.includes(declared)) {
      throw new AppError(
        'unsupported_media_type',
        `Content-Type must be ${ACCEPTED.join(', ')}${declared === 'image/svg+xml' ? ' (SVG is not accepted: it can carry scripts)' : ''}; got "${declared || 'none'}"`,
      );
    }
    const data = await readBody(ctx, LOGO_MAX_BYTES);
    if (!data.length) throw new AppError('bad_request', 'The body is empty: send the image', [{ field: 'body', message: 'is empty' }]);
    const image = await pool.check(data, LOGO_MAX_SIDE);
    if (image.type !== declared) {
      const message = `the body is ${image.type}, not ${declared} as Content-Type says`;
      throw new AppError('bad_request', `The logo was refused: ${message}`, [{ field: 'body', message }]);
    }
    const saved = await setLogo(deps.orm.em.fork(), business, { data, contentType: image.type, width: image.width, height: image.height });
    await noteWrite(context);
    const { replyTo, logoFile, ...shown } = presentBusiness(saved);
    const logoUrl = `${context.surveyUrl}${logoPath(business, logoFile!)}`;
    ctx.type = 'application/json';
    ctx.body = JSON.stringify({ data: { ...shown, logoUrl, ...(context.auth?.scopes.has('business:read') ? { replyTo } : {}) }, object: 'business' });
  });

  router.all('/v2/businesses/:business/logo', (ctx) => {
    ctx.status = 405;
    ctx.set('Allow', 'PUT');
  });

  router.get('/logos/:business/:file', async (ctx) => {
    const { business, file } = ctx.params;
    const logo = /^[0-9a-f]{64}\.(png|jpg|webp)$/.test(file) ? await findLogo(deps.orm.em.fork(), business, file) : null;
    if (!logo) throw new AppError('not_found', 'No such logo');
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; sandbox");
    ctx.set('Cross-Origin-Resource-Policy', 'cross-origin');
    ctx.type = logo.contentType;
    ctx.body = logo.data;
  });

  return { router, stop: () => pool.close() };
}
