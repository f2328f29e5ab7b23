import Router from '@koa/router';
import { execute, parse, type GraphQLSchema } from 'graphql';
import type { ApiLimit } from '../src/http/rate-limit/rate-limits.js';
import { AppError } from '../src/shared/errors.js';
import { Checks } from '../src/shared/validation.js';
import { routeReads, type ContextFor } from '../src/kit/graphql/context.js';
import { pickError } from './errors.mapper.js';
import { QrCache } from './qr.cache.js';
import { drawingCost, QrPool, type QrFormat, type QrOptions } from './qr.pool.js';

/**
 * GET /v2/businesses/{b}/surveys/{s}/qr?format=svg|png&size=<px>&location=<loc id>: a printable QR code of the survey
 * link with `ch=qr` (and the location's `location:metadata`). The link comes from the `surveyLink` query, run
 * in-process like every REST route, so scope (surveys:read), tenant and 404 rules are the API's own.
 */
const DOCUMENT = parse(
  `query($b: ID!, $s: ID!, $l: ID) { link: surveyLink(business: $b, survey: $s, location: $l, channel: qr) survey(business: $b, id: $s) { name } }`,
);
const FORMATS = ['svg', 'png'] as const;
const SIZE = { min: 64, max: 2048, default: 512 };

const slug = (name: string) =>
  name
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase()
    .slice(0, 60) || 'survey';

export function qrRoutes(deps: { schema: GraphQLSchema; contextFor: ContextFor; limit?: ApiLimit }) {
  const router = new Router();
  const pool = new QrPool();
  const cache = new QrCache();
  router.get('/v2/businesses/:business/surveys/:survey/qr', async (ctx) => {
    const one = (v: unknown) => (Array.isArray(v) ? v[0] : v) as string | undefined;
    const format = (one(ctx.query.format) ?? 'svg') as QrFormat;
    const rawSize = one(ctx.query.size);
    const location = one(ctx.query.location) || null;
    const checks = new Checks();
    if (!(FORMATS as readonly string[]).includes(format)) checks.fail('format', `must be one of ${FORMATS.join(', ')}`);
    const size = rawSize === undefined ? SIZE.default : Number(rawSize);
    if (!Number.isInteger(size) || size < SIZE.min || size > SIZE.max) checks.fail('size', `must be an integer from ${SIZE.min} to ${SIZE.max} (pixels)`);
    checks.throwIfAny();

    const contextValue = await deps.contextFor(ctx.state.requestId, ctx.get('authorization') || undefined, ctx.ip);
    const charge = await deps.limit?.charge(contextValue.auth, ctx.ip, 1);
    if (charge) ctx.set(charge.headers);
    await routeReads(contextValue, 'query');
    const variableValues = { b: ctx.params.business, s: ctx.params.survey, l: location };
    const result = await execute({ schema: deps.schema, document: DOCUMENT, contextValue, variableValues });
    // The Koa error handler answers it as every REST error (src/shared/error-answer.ts).
    if (result.errors?.length) throw pickError(result.errors);
    const data = result.data as { link: string; survey: { name: string } } | null;
    if (!data) throw new AppError('internal', 'No link was produced');

    const options: QrOptions = { width: size, margin: 2, errorCorrectionLevel: 'M' };
    const key = `${format}|${size}|${data.link}`;
    // Drawing is charged on top of the request's unit; a code already drawn, or being drawn for another request, is not.
    if (!cache.get(key)) {
      const drawing = await deps.limit?.charge(contextValue.auth, ctx.ip, drawingCost(format, size));
      if (drawing) ctx.set(drawing.headers);
    }
    const body = await cache.obtain(key, () => pool.draw(data.link, format, options));
    const name = `${slug(data.survey.name)}-qr${location ? `-${location}` : ''}.${format}`;
    ctx.set('Content-Disposition', `attachment; filename="${name}"`);
    ctx.set('Cache-Control', 'private, max-age=300');
    ctx.set('X-Survey-Link', data.link);
    ctx.type = format === 'svg' ? 'image/svg+xml' : 'image/png';
    ctx.body = body;
  });
  return { router, stop: () => pool.close() };
}
