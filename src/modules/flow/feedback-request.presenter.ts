import type { FeedbackFlow } from './feedback-flow.entity.js';
import type { FeedbackRequest } from './feedback-request.entity.js';
import type { FeedbackFlowType, FeedbackRequestType } from './feedback-flow.type.js';
import { presentOwned } from '../../kit/owned.presenter.js';

/** The stored fields a request is presented from (entities, and rows the SQL writers read or wrote). */
export type RequestRecord = Pick<
  FeedbackRequest,
  | 'id' | 'business' | 'flow' | 'order' | 'survey' | 'trigger' | 'status' | 'reason' | 'error' | 'channel' | 'sendAt' | 'sentAt'
  | 'remindedAt' | 'openedAt' | 'completedAt' | 'expiresAt' | 'createdAt' | 'updatedAt'
>;

export function presentRequest(r: RequestRecord): FeedbackRequestType {
  return presentOwned(r, 'feedbackrequest', {
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
  });
}

export function presentFlow(f: FeedbackFlow): FeedbackFlowType {
  return presentOwned(f, 'feedbackflow', {
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
  });
}
