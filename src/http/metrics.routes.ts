import { timingSafeEqual } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import { httpDuration, httpRequests, registry, scrapedGauge } from '../kit/metrics/metrics.js';
import { AppError } from '../shared/errors.js';
import { bearerToken } from '../shared/bearer.js';
import { ormPool } from '../kit/db/db.js';
import { dueDeliveries } from '../modules/webhook/index.js';

/** Paths answered outside any router: their own template. Everything else unrouted is "unmatched", never its raw path. */
const PLAIN_PATHS = new Set(['/graphql', '/metrics', '/healthz', '/readyz', '/openapi.json', '/docs', '/']);

function routeOf(ctx: Context): string {
  const matched = (ctx as Context & { _matchedRoute?: string | RegExp })._matchedRoute;
  if (typeof matched === 'string') return matched;
  if (PLAIN_PATHS.has(ctx.path)) return ctx.path;
  if (ctx.path.startsWith('/survey/')) return '/survey/*';
  if (ctx.path.startsWith('/docs/')) return '/docs/*';
  return 'unmatched';
}

/** Counts and times every request by method, route template and status; outermost, so errors are counted as answered. */
export function httpMetrics(): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const labels = { method: ctx.method, route: routeOf(ctx), status: String(ctx.status) };
      httpRequests.inc(labels);
      httpDuration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}

function tokenMatches(given: string | undefined, expected: string): boolean {
  const a = Buffer.from(given ?? '');
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `GET /metrics` in Prometheus's text format. With METRICS_TOKEN set it needs `Authorization: Bearer <token>`.
 * The database pool and the job queues are read at scrape time (one small SQL statement), not kept up to date.
 */
export function metricsRoute(deps: { orm: MikroORM; token?: string }): Middleware {
  const pool = () => ormPool(deps.orm.em);
  scrapedGauge(
    { name: 'db_pool_connections', help: 'Database pool connections by state (total, idle, waiting clients)', labelNames: ['state'] as const },
    async (g) => {
      const p = await pool();
      g.set({ state: 'total' }, p.totalCount);
      g.set({ state: 'idle' }, p.idleCount);
      g.set({ state: 'waiting' }, p.waitingCount);
    },
  );
  // Both queue gauges come from one statement per scrape (Prometheus reads every metric at once).
  type Row = { queue: string; depth: number; oldest: number };
  let last: { at: number; rows: Promise<Row[]> } | undefined;
  const queues = () => {
    // Work due now and not yet done: deliveries whose attempt time has come. Another queue adds its own row here.
    if (!last || Date.now() - last.at > 1_000)
      last = { at: Date.now(), rows: dueDeliveries(deps.orm.em.fork()).then((due) => [{ queue: 'webhook_delivery', ...due }]) };
    return last.rows;
  };
  scrapedGauge({ name: 'job_queue_depth', help: 'Jobs due and not yet done, by queue', labelNames: ['queue'] as const }, async (g) => {
    for (const row of await queues()) g.set({ queue: row.queue }, row.depth);
  });
  scrapedGauge(
    { name: 'job_queue_oldest_age_seconds', help: 'How long the oldest due job has waited, by queue', labelNames: ['queue'] as const },
    async (g) => {
      for (const row of await queues()) g.set({ queue: row.queue }, Math.max(0, row.oldest));
    },
  );
  return async (ctx, next) => {
    if (ctx.path !== '/metrics') return next();
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
      throw new AppError('method_not_allowed', `${ctx.method} is not allowed on /metrics; allowed: GET, HEAD`, undefined, { Allow: 'GET, HEAD' });
    }
    if (deps.token && !tokenMatches(bearerToken(ctx.get('authorization') || undefined), deps.token)) {
      throw new AppError('unauthorized', 'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>', undefined, {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      });
    }
    ctx.set('Cache-Control', 'no-store');
    ctx.type = registry.contentType;
    ctx.body = await registry.metrics();
  };
}
