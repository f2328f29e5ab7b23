import type { FeedbackFlow } from './feedback-flow.entity.js';
import type { FeedbackRequest } from './feedback-request.entity.js';
import type { FeedbackFlowType, FeedbackRequestType } from './feedback-flow.type.js';

/** The stored fields a request is presented from (entities, and rows the SQL writers read or wrote). */
export type RequestRecord = Pick<
  FeedbackRequest,
  | 'id' | 'business' | 'flow' | 'order' | 'survey' | 'trigger' | 'status' | 'reason' | 'error' | 'channel' | 'sendAt' | 'sentAt'
  | 'remindedAt' | 'openedAt' | 'completedAt' | 'expiresAt' | 'createdAt' | 'updatedAt'
>;

export function presentRequest(r: RequestRecord): FeedbackRequestType {
  return {
    id: r.id, object: 'feedbackrequest', business: r.business,
    flow: r.flow ?? null,
    order: r.order,
    survey: r.survey,
    trigger: r.trigger,
    status: r.status,
    reason: r.reason ?? null,
    error: r.error ?? null,
    channel: r.channel ?? null,
    sendAt: r.sendAt,
    sentAt: r.sentAt ?? null,
    remindedAt: r.remindedAt ?? null,
    openedAt: r.openedAt ?? null,
    completedAt: r.completedAt ?? null,
    expiresAt: r.expiresAt,
    createdAt: r.createdAt, updatedAt: r.updatedAt,
  };
}

export function presentFlow(f: FeedbackFlow): FeedbackFlowType {
  return {
    id: f.id, object: 'feedbackflow', business: f.business,
    name: f.name,
    enabled: f.enabled,
    priority: f.priority,
    trigger: f.trigger,
    conditions: (f.conditions as Record<string, unknown> | null | undefined) ?? null,
    survey: f.survey,
    channels: f.channels,
    delayMinutes: f.delayMinutes,
    quietHours: f.quietHours ? { ...f.quietHours, timeZone: f.quietHours.timeZone ?? null } : null,
    throttleDays: f.throttleDays,
    reminderAfterHours: f.reminderAfterHours ?? null,
    expiresAfterHours: f.expiresAfterHours,
    templates: f.templates as Record<string, unknown>,
    createdAt: f.createdAt, updatedAt: f.updatedAt,
  };
}
