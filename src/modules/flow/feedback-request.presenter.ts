import type { FeedbackFlow } from './feedback-flow.entity.js';
import type { FeedbackRequest } from './feedback-request.entity.js';
import type { FeedbackFlowType, FeedbackRequestType } from './feedback-flow.type.js';
import { ownedPresenter } from '../../kit/resource/owned.presenter.js';

/** The stored fields a request is presented from (entities, and rows the SQL writers read or wrote). */
export type RequestRecord = Pick<
  FeedbackRequest,
  | 'id'
  | 'business'
  | 'flow'
  | 'order'
  | 'survey'
  | 'trigger'
  | 'status'
  | 'reason'
  | 'error'
  | 'channel'
  | 'sendAt'
  | 'sentAt'
  | 'remindedAt'
  | 'openedAt'
  | 'completedAt'
  | 'expiresAt'
  | 'createdAt'
  | 'updatedAt'
>;

export const presentRequest: (record: RequestRecord) => FeedbackRequestType = ownedPresenter('feedbackrequest', [
  'flow',
  'order',
  'survey',
  'trigger',
  'status',
  'reason',
  'error',
  'channel',
  'sendAt',
  'sentAt',
  'remindedAt',
  'openedAt',
  'completedAt',
  'expiresAt',
]);

export function presentFlow(f: FeedbackFlow): FeedbackFlowType {
  return {
    id: f.id,
    object: 'feedbackflow',
    business: f.business,
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
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  };
}
