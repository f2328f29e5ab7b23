import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent, deleteRecorded, updateRecorded } from '../event/index.js';
import { ownedResource } from '../../kit/resource/owned.resource.js';
import { findOwned } from '../../kit/resource/resource.js';
import { AppError } from '../../shared/errors.js';
import { Checks } from '../../shared/validation.js';
import { Business } from '../business/index.js';
import { Order, readNewOrder } from '../order/index.js';
import { findSurvey } from '../survey/index.js';
import { FeedbackFlow, type FlowConditions, type FlowTemplate, type QuietHours } from './feedback-flow.entity.js';
import {
  afterQuietHours,
  asChannels,
  asTrigger,
  checkFlowFields,
  contactHash,
  FLOW_DEFAULTS,
  quietHoursZone,
  render,
  templateFor,
  unmetConditions,
  type FlowFields,
  flowOrderOf,
  type FlowOrder,
} from './feedback-flow.rules.js';
import type { FeedbackFlowSimulationType, FeedbackFlowType } from './feedback-flow.type.js';
import type { CreateFeedbackFlowInput, UpdateFeedbackFlowInput } from './feedback-flow.inputs.js';
import { flowsChanged } from './feedback-request-creation.service.js';
import { presentFlow } from './feedback-request.presenter.js';
import { cancelScheduled, suppressionOf, throttledBy } from './feedback-request.service.js';
import { orderTimeZone } from '../location/index.js';
import { feedbackSubject } from './feedback-mail.presenter.js';

declare module '../../kit/graphql/context.js' {
  interface Services {
    /** The channels a feedback request can go by here: those with a sender configured (config.ts channelsWithSender). */
    senders: Record<'email' | 'sms', boolean>;
  }
}

const { find: findFlow, list: listFlows, recorded } = ownedResource(FeedbackFlow, { kind: 'feedbackFlow', label: 'Feedback flow', present: presentFlow });

/** A survey of another business reads as an unknown one: a 400 on the field, never a 404 of the flow. */
async function checkSurvey(em: EntityManager, business: string, survey: string | undefined, checks: Checks) {
  if (survey == null) return;
  try {
    await findSurvey(em, business, survey);
  } catch (err) {
    if (err instanceof AppError && err.code === 'not_found') checks.fail('survey', `no survey ${survey} in this business`);
    else throw err;
  }
}

const quietHours = (q: Record<string, unknown>): QuietHours => ({
  from: q.from as string,
  to: q.to as string,
  ...(q.timeZone ? { timeZone: q.timeZone as string } : {}),
});

async function createFlow(em: EntityManager, business: string, input: CreateFeedbackFlowInput): Promise<FeedbackFlowType> {
  const checks = new Checks();
  checkFlowFields(checks, input as FlowFields, true);
  await checkSurvey(em, business, input.survey, checks);
  checks.throwIfAny();
  const presented = await em.transactional(async (tx) => {
    const flow = tx.create(FeedbackFlow, {
      business,
      name: input.name.trim(),
      enabled: input.enabled ?? true,
      priority: input.priority ?? 0,
      trigger: asTrigger(input.trigger ?? 'order.created'),
      conditions: (input.conditions as FlowConditions | null | undefined) ?? null,
      survey: input.survey,
      channels: asChannels(input.channels ?? ['email', 'sms']),
      delayMinutes: input.delayMinutes ?? FLOW_DEFAULTS.delayMinutes,
      quietHours: input.quietHours === null ? null : input.quietHours ? quietHours(input.quietHours) : FLOW_DEFAULTS.quietHours,
      throttleDays: input.throttleDays ?? FLOW_DEFAULTS.throttleDays,
      reminderAfterHours: input.reminderAfterHours ?? null,
      expiresAfterHours: input.expiresAfterHours ?? FLOW_DEFAULTS.expiresAfterHours,
      templates: (input.templates as Record<string, FlowTemplate> | undefined) ?? FLOW_DEFAULTS.templates,
    });
    const out = presentFlow(flow);
    recordEvent(tx, business, 'feedbackflow.created', out);
    return out;
  });
  flowsChanged(business);
  return presented;
}

async function updateFlow(em: EntityManager, business: string, id: string, input: UpdateFeedbackFlowInput): Promise<FeedbackFlowType> {
  const checks = new Checks();
  checkFlowFields(checks, input as FlowFields, false);
  await checkSurvey(em, business, input.survey ?? undefined, checks);
  checks.throwIfAny();
  const presented = await updateRecorded(em, recorded, business, id, (flow) => {
    if (input.name != null) flow.name = input.name.trim();
    if (input.enabled != null) flow.enabled = input.enabled;
    if (input.priority != null) flow.priority = input.priority;
    if (input.trigger != null) flow.trigger = asTrigger(input.trigger);
    if (input.conditions !== undefined) flow.conditions = (input.conditions as FlowConditions | null) ?? null;
    if (input.survey != null) flow.survey = input.survey;
    if (input.channels != null) flow.channels = asChannels(input.channels);
    if (input.delayMinutes != null) flow.delayMinutes = input.delayMinutes;
    if (input.quietHours !== undefined) flow.quietHours = input.quietHours ? quietHours(input.quietHours) : null;
    if (input.throttleDays != null) flow.throttleDays = input.throttleDays;
    if (input.reminderAfterHours !== undefined) flow.reminderAfterHours = input.reminderAfterHours;
    if (input.expiresAfterHours != null) flow.expiresAfterHours = input.expiresAfterHours;
    if (input.templates != null) flow.templates = input.templates as Record<string, FlowTemplate>;
  });
  flowsChanged(business);
  return presented;
}

/** Its requests stay (their flow becomes null); what was still scheduled is cancelled. */
async function deleteFlow(em: EntityManager, business: string, id: string): Promise<string> {
  const deleted = await deleteRecorded(em, recorded, business, id, async (flow, tx) => {
    await cancelScheduled(tx, business, { flow: flow.id }, 'flow_deleted');
    tx.remove(flow);
  });
  flowsChanged(business);
  return deleted;
}

/**
 * A dry run: whether the order matches, why not, when and on which channel it would go, the message, and any
 * suppression that would apply now. Nothing is stored or sent.
 */
/** What guests are told the business is called: its display name, else its name. */
const displayNameOf = async (em: EntityManager, business: string) => {
  const row = await em.findOne(Business, { id: business }, { fields: ['name', 'displayName'] });
  return row?.displayName || row?.name || '';
};

export async function simulateFlow(em: EntityManager, business: string, id: string, given: unknown, surveyBase: string): Promise<FeedbackFlowSimulationType> {
  const flow = await findFlow(em, business, id);
  let order: FlowOrder;
  if (typeof given === 'string') {
    order = flowOrderOf(await findOwned(em, Order, { kind: 'order', label: 'Order', business, id: given }));
  } else if (given && typeof given === 'object' && !Array.isArray(given)) {
    const owner = await em.findOne(Business, { id: business });
    const checks = new Checks();
    const fields = readNewOrder(checks, given, 'api', owner?.country);
    if (checks.details.length) throw AppError.validation(checks.details.map((d) => ({ ...d, field: `order.${d.field}` })));
    order = flowOrderOf({ ...fields, id: 'ord_SIMULATED', createdAt: new Date() });
  } else {
    throw AppError.validation([{ field: 'order', message: 'must be an order id ("ord_...") or an object of order fields' }]);
  }
  const now = new Date();
  const reasons = unmetConditions(flow.conditions, order);
  if (!flow.enabled) reasons.unshift('the flow is disabled');
  const zone = await orderTimeZone(em, business, order.externalLocationId);
  const sendAt = afterQuietHours(new Date(Math.max(now.getTime(), order.createdAt.getTime() + flow.delayMinutes * 60_000)), flow.quietHours, zone);
  const expiresAt = order.createdAt.getTime() + flow.expiresAfterHours * 3_600_000;
  let suppression: string | null = null;
  let channel: string | null = null;
  const emailHash = contactHash('email', order.customerEmail);
  const phoneHash = contactHash('sms', order.customerPhone);
  if (sendAt.getTime() >= expiresAt) suppression = flow.quietHours && sendAt.getTime() > now.getTime() ? 'quiet_hours' : 'order_too_old';
  else if (flow.throttleDays > 0 && (await throttledBy(em, business, { emailHash, phoneHash, before: now, days: flow.throttleDays, excludeOrder: order.id })))
    suppression = 'throttled';
  else {
    const pick = await suppressionOf(em, business, flow.channels, { email: emailHash, sms: phoneHash });
    channel = pick.channel;
    suppression = pick.reason;
  }
  const { template } = templateFor(flow.templates, order.metadata.lang);
  const values = { link: `${surveyBase}/r/XXXXXXXXXXXXXXXX`, name: order.customerName, orderId: order.externalOrderId };
  return {
    object: 'feedbackflowsimulation',
    matches: reasons.length === 0,
    reasons,
    sendAt: reasons.length ? null : sendAt,
    channel: reasons.length ? null : (channel ?? null),
    // As the e-mail will say it: the default subject names the restaurant (issue 36).
    subject: channel === 'sms' ? null : render(feedbackSubject(template.subject, order.metadata.lang, await displayNameOf(em, business)), values),
    body: render(template.body, values),
    suppression,
    quietHoursTimeZone: quietHoursZone(flow.quietHours, zone),
  };
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver / NestedCrudResolver). */
export const crud = { list: listFlows, find: findFlow, present: presentFlow, create: createFlow, update: updateFlow, delete: deleteFlow };
