import { randomBytesPooled } from '../../shared/random.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../shared/id.js';
import { stringifyWithMillis } from '../../shared/timestamps.js';
import type { OrderRecord } from '../order/index.js';
import type { FlowConditions, FlowTrigger } from './feedback-flow.entity.js';
import { contactHash, flowOrderOf, unmetConditions } from './feedback-flow.rules.js';
import { presentRequest, type RequestRecord } from './feedback-request.presenter.js';
import { eventRecorded } from '../event/index.js';
import { enabledFlows, insertRequest, wakeFeedbackWorkers } from './flow.repo.js';

/**
 * Feedback requests are written in the order's own transaction (the order writer's, for both doors, and the API's
 * status update: the order module runs this as its "order written" step, given at start): the order and its request
 * commit together or not at all, and the unique (order, flow) index makes a repeated or concurrent order create one
 * request. Most businesses have no flow: a per-process cache of each business's enabled flows keeps that case free of
 * any statement (one small read per business every CACHE_MS).
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

async function flowsOf(em: EntityManager, business: string): Promise<CachedFlow[]> {
  const now = Date.now();
  const hit = cache.get(business);
  if (hit && now - hit.at < CACHE_MS) return hit.flows;
  const seen = version;
  const flows = (await enabledFlows(em, business)).map((r) => ({
    id: r.id,
    trigger: r.trigger,
    conditions: r.conditions ?? null,
    survey: r.survey_id,
    channels: r.channels,
    delayMinutes: r.delay_minutes,
    expiresAfterHours: r.expires_after_hours,
  }));
  if (seen === version) cache.set(business, { at: now, flows });
  return flows;
}

/** The first enabled flow (by priority) of `trigger` whose conditions the order meets. */
const flowFor = (flows: CachedFlow[], trigger: FlowTrigger, order: ReturnType<typeof flowOrderOf>) =>
  flows.find((f) => f.trigger === trigger && !unmetConditions(f.conditions, order).length);

/** Whether createFeedbackRequests would create a request for this order (read outside any transaction). */
export async function feedbackMayFollow(em: EntityManager, business: string, stored: OrderRecord, triggers: FlowTrigger[]): Promise<boolean> {
  const flows = await flowsOf(em, business);
  if (!flows.length) return false;
  const order = flowOrderOf(stored);
  return triggers.some((trigger) => !!flowFor(flows, trigger, order));
}

/**
 * For each trigger the order fires, the first enabled flow (by priority) whose conditions it meets gets a request,
 * in `tx` (the order's transaction): scheduled after the flow's delay, or suppressed at once when the order carries
 * no contact the flow can use. Answers how many it created.
 */
export async function createFeedbackRequests(
  tx: EntityManager,
  business: string,
  stored: OrderRecord,
  triggers: FlowTrigger[],
  now = new Date(),
): Promise<number> {
  const flows = await flowsOf(tx, business);
  if (!flows.length) return 0;
  const order = flowOrderOf(stored);
  let created = 0;
  for (const trigger of triggers) {
    const flow = flowFor(flows, trigger, order);
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
    const event = { id: newId('event'), json: stringifyWithMillis({ object: presentRequest(record) }) };
    const written = await insertRequest(
      tx,
      {
        id: record.id,
        business_id: business,
        flow_id: flow.id,
        order_id: order.id,
        survey_id: flow.survey,
        trigger,
        status: record.status,
        reason: record.reason,
        email_hash: contactHash('email', order.customerEmail),
        phone_hash: contactHash('sms', order.customerPhone),
        token: randomBytesPooled(12).toString('base64url'),
        send_at: sendAt,
        due_at: hasContact ? sendAt : null,
        expires_at: record.expiresAt,
        attempts: 0,
        created_at: now,
        updated_at: now,
      },
      event,
    );
    if (!written) continue;
    created++;
    eventRecorded(tx, { id: event.id, business, type: 'feedbackrequest.created', fanoutPending: written.fanout_pending });
    if (hasContact) wakeFeedbackWorkers(tx, sendAt);
  }
  return created;
}
