import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { PoolClient } from 'pg';
import { newId } from '../../shared/id.js';
import { stringifyWithMillis } from '../../shared/timestamps.js';
import type { FlowConditions, FlowTrigger } from './feedback-flow.entity.js';
import { contactHash, unmetConditions, type FlowOrder } from './feedback-flow.rules.js';
import { presentRequest, type RequestRecord } from './feedback-request.presenter.js';

/**
 * Feedback requests are written in the order's own transaction (by the order writer for both doors, and by the API's
 * status update): the order and its request commit together or not at all, and the unique (order, flow) index makes a
 * repeated or concurrent order create one request. Most businesses have no flow: a per-process cache of each
 * business's enabled flows keeps that case free of any statement (one small read per business every CACHE_MS).
 */
const CACHE_MS = 2_000;

interface CachedFlow {
  id: string;
  trigger: FlowTrigger;
  conditions: FlowConditions | null;
  survey: string;
  channels: string[];
  delayMinutes: number;
  expiresAfterHours: number;
}

const cache = new Map<string, { at: number; flows: CachedFlow[] }>();
/** Bumped by every flow write in this process: a load that raced a write is not kept. */
let version = 0;

/** Called by every flow write: this process sees the change at once, others within CACHE_MS. */
export function flowsChanged(business: string) {
  version++;
  cache.delete(business);
}

const LOAD_FLOWS_SQL = `
select id, trigger, conditions, survey_id, channels, delay_minutes, expires_after_hours
from feedback_flow where business_id = $1 and enabled order by priority, created_at, id`;

const CREATE_SQL = `
with r as (
  insert into feedback_request (id, business_id, flow_id, order_id, survey_id, trigger, status, reason, email_hash,
    phone_hash, token, send_at, due_at, expires_at, attempts, created_at, updated_at)
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 0, $15, $15)
  on conflict (order_id, flow_id) do nothing
  returning id
)
insert into event (id, business_id, type, data, created_at)
select $16, $2, 'feedbackrequest.created', $17::jsonb, $15 from r
returning id`;

/** Runs one statement ($n placeholders) in the caller's transaction. */
type Run = (name: string, text: string, values: unknown[]) => Promise<Record<string, unknown>[]>;

const onClient = (client: PoolClient): Run => async (name, text, values) => (await client.query({ name, text, values })).rows;
const onEm = (em: EntityManager): Run => (_name, text, values) =>
  em.execute(text.replace(/\$(\d+)/g, (_, n: string) => `?`.concat('/*', n, '*/')), reorder(text, values));

/** MikroORM binds `?` in order: spell each $n occurrence out as its value. */
function reorder(text: string, values: unknown[]): unknown[] {
  return [...text.matchAll(/\$(\d+)/g)].map((m) => values[Number(m[1]) - 1]);
}

async function flowsOf(run: Run, business: string): Promise<CachedFlow[]> {
  const now = Date.now();
  const hit = cache.get(business);
  if (hit && now - hit.at < CACHE_MS) return hit.flows;
  const seen = version;
  const rows = await run('feedback_flows_load', LOAD_FLOWS_SQL, [business]);
  const flows = rows.map((r) => ({
    id: r.id as string,
    trigger: r.trigger as FlowTrigger,
    conditions: (r.conditions as FlowConditions | null) ?? null,
    survey: r.survey_id as string,
    channels: r.channels as string[],
    delayMinutes: r.delay_minutes as number,
    expiresAfterHours: r.expires_after_hours as number,
  }));
  if (seen === version) cache.set(business, { at: now, flows });
  return flows;
}

/**
 * For each trigger the order fires, the first enabled flow (by priority) whose conditions it meets gets a request:
 * scheduled after the flow's delay, or suppressed at once when the order carries no contact the flow can use.
 */
async function create(run: Run, business: string, order: FlowOrder, triggers: FlowTrigger[], now: Date): Promise<number> {
  const flows = await flowsOf(run, business);
  if (!flows.length) return 0;
  let created = 0;
  for (const trigger of triggers) {
    const flow = flows.find((f) => f.trigger === trigger && !unmetConditions(f.conditions, order).length);
    if (!flow) continue;
    const hasContact = flow.channels.some((c) => (c === 'email' ? !!order.customerEmail : !!order.customerPhone));
    const sendAt = new Date(now.getTime() + flow.delayMinutes * 60_000);
    const record: RequestRecord = {
      id: newId('feedbackRequest'),
      business,
      flow: flow.id,
      order: order.id,
      survey: flow.survey,
      trigger,
      status: hasContact ? 'scheduled' : 'suppressed',
      reason: hasContact ? null : 'no_contact',
      error: null,
      channel: null,
      sendAt,
      sentAt: null,
      remindedAt: null,
      openedAt: null,
      completedAt: null,
      expiresAt: new Date(order.createdAt.getTime() + flow.expiresAfterHours * 3_600_000),
      createdAt: now,
      updatedAt: now,
    };
    const rows = await run('feedback_request_create', CREATE_SQL, [
      record.id,
      business,
      flow.id,
      order.id,
      flow.survey,
      trigger,
      record.status,
      record.reason,
      contactHash('email', order.customerEmail),
      contactHash('sms', order.customerPhone),
      randomBytes(12).toString('base64url'),
      sendAt.toISOString(),
      hasContact ? sendAt.toISOString() : null,
      record.expiresAt.toISOString(),
      now.toISOString(),
      newId('event'),
      stringifyWithMillis({ object: presentRequest(record) }),
    ]);
    created += rows.length ? 1 : 0;
  }
  return created;
}

/** In the order writer's transaction (its own `pg` client). */
export function createFeedbackRequests(client: PoolClient, business: string, order: FlowOrder, triggers: FlowTrigger[], now = new Date()) {
  return create(onClient(client), business, order, triggers, now);
}

/** In an ORM transaction (the API's order status update). */
export function createFeedbackRequestsIn(em: EntityManager, business: string, order: FlowOrder, triggers: FlowTrigger[], now = new Date()) {
  return create(onEm(em), business, order, triggers, now);
}
