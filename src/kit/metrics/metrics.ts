import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics, in one registry that `GET /metrics` serves (src/http/metrics.routes.ts). Here in
 * the kit so doors, modules and workers count into it alike. Labels are bounded sets (route templates, outcomes,
 * limit names), never raw paths or ids: every label value is a time series kept for ever.
 */
export const registry = new Registry();

// Process metrics, including the event loop's lag (nodejs_eventloop_lag_*): sampled, not per request.
collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 20 });

/** A counter in this registry; `labelNames` bound its series (see above). */
function counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
  return new Counter<L>({ name, help, labelNames, registers: [registry] });
}

export const httpRequests = counter('http_requests_total', 'HTTP requests answered, by method, route template and status', ['method', 'route', 'status']);

export const httpDuration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'Time to answer an HTTP request, by method, route template and status',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

export const graphqlOperations = counter(
  'graphql_operations_total',
  'GraphQL operations run, by operation name and type (the name "other" past the first 500 names)',
  ['operation', 'type', 'outcome'],
);

export const webhookAttempts = counter(
  'webhook_delivery_attempts_total',
  'Outbound webhook delivery attempts, by outcome (succeeded, failed: will retry, exhausted)',
  ['outcome'],
);

export const rateLimitRefusals = counter('rate_limit_refusals_total', 'Requests refused by a rate limit (429), by limit', ['limit']);

export const messagesHeld = counter(
  'messages_held_total',
  "Outbound messages held for later by a sending budget, by channel, kind (feedback_request, reminder, alert, escalation, alert_confirmation, invitation) and budget (business: its daily budget; guest: the per-guest one; inbox: an address's hourly account e-mails)",
  ['channel', 'kind', 'budget'],
);

export const accountMailsWithheld = counter(
  'account_mails_withheld_total',
  'Account e-mails (password reset, confirmation, "you already have an account") not sent because their inbox had its hourly number already, by kind',
  ['kind'],
);

export const ordersIngested = counter('orders_ingested_total', 'Orders received on the custom order webhook, by result (created, updated, unchanged)', [
  'result',
]);

export const smsInbound = counter(
  'sms_inbound_total',
  "Guests' SMS received, by what became of them: joined a case thread by its reply code (code) or as the one business texting the number lately (recent), held for the operator (held), an opt-out tied to no thread (stop: acted on, not kept), empty",
  ['outcome'],
);

export const dbReads = counter(
  'db_reads_total',
  'Lag-tolerant reads (GraphQL queries, REST GETs and exports, guest survey pages) by where they were sent: replica, or primary (no replica usable, or the client wrote within the read-your-writes window)',
  ['target'],
);

export const replicaFallbacks = counter(
  'db_replica_fallbacks_total',
  'Statements of lag-tolerant reads retried on the primary because their replica failed them, by replica',
  ['replica'],
);

/** Set when a replica is checked (reads come), never by a scrape: an idle process sends nothing to check it. */
export const replicaLag = new Gauge({
  name: 'db_replica_lag_seconds',
  help: 'How far each read replica was behind the primary at its last check (0: it had replayed all the primary had; +Inf: down or unknown)',
  labelNames: ['replica'] as const,
  registers: [registry],
});

export const replicaUsable = new Gauge({
  name: 'db_replica_usable',
  help: 'Whether each read replica took reads after its last check (1) or was skipped: down, or behind by more than REPLICA_MAX_LAG (0)',
  labelNames: ['replica'] as const,
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
