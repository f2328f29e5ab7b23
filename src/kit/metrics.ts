import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics, in one registry that `GET /metrics` serves (src/http/metrics.routes.ts). Here in
 * the kit so doors, modules and workers count into it alike. Labels are bounded sets (route templates, outcomes,
 * limit names), never raw paths or ids: every label value is a time series kept for ever.
 */
export const registry = new Registry();

// Process metrics, including the event loop's lag (nodejs_eventloop_lag_*): sampled, not per request.
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

export const httpRequests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered, by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [registry],
});

export const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const graphqlOperations = new Counter({
  name: 'graphql_operations_total',
  help: 'GraphQL operations run, by operation name and type (the name "other" past the first 500 names)',
  labelNames: ['operation', 'type', 'outcome'] as const,
  registers: [registry],
});

export const webhookAttempts = new Counter({
  name: 'webhook_delivery_attempts_total',
  help: 'Outbound webhook delivery attempts, by outcome (succeeded, failed: will retry, exhausted)',
  labelNames: ['outcome'] as const,
  registers: [registry],
});

export const rateLimitRefusals = new Counter({
  name: 'rate_limit_refusals_total',
  help: 'Requests refused by a rate limit (429), by limit',
  labelNames: ['limit'] as const,
  registers: [registry],
});

export const ordersIngested = new Counter({
  name: 'orders_ingested_total',
  help: 'Orders received on the custom order webhook, by result (created, updated, unchanged)',
  labelNames: ['result'] as const,
  registers: [registry],
});

/** Client-chosen operation names are bounded: plain names only, and at most this many distinct ones. */
const MAX_OPERATION_NAMES = 500;
const seenNames = new Set<string>();

export function operationLabel(name: string | null | undefined): string {
  if (!name) return 'anonymous';
  if (seenNames.has(name)) return name;
  if (seenNames.size >= MAX_OPERATION_NAMES || !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(name)) return 'other';
  seenNames.add(name);
  return name;
}

/** A gauge whose value is read when Prometheus scrapes (pool use, queue depth by SQL). */
export function scrapedGauge<L extends string>(
  options: { name: string; help: string; labelNames?: readonly L[] },
  read: (gauge: Gauge<L>) => Promise<void> | void,
): Gauge<L> {
  const existing = registry.getSingleMetric(options.name);
  if (existing) registry.removeSingleMetric(options.name);
  return new Gauge<L>({
    ...options,
    registers: [registry],
    async collect() {
      await read(this);
    },
  });
}
