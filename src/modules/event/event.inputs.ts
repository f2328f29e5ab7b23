import { StringFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { EventType } from './event.type.js';

export const [EventList, EventListArgs] = listInputs('Event', EventType, {
  where: { type: StringFilter },
  orderBy: ['createdAt', 'type'],
});

/** Every event type the service writes; webhooks subscribe to these or to `*`. */
export const EVENT_TYPES = [
  ...['survey', 'surveystep', 'metric', 'location', 'webhook', 'submission', 'credential', 'member'].flatMap((r) => [
    `${r}.created`,
    `${r}.updated`,
    `${r}.deleted`,
  ]),
  // The guest's last answer (the survey page): a partial submission becomes completed.
  'submission.completed',
  'order.created',
  'order.updated',
  'webhook.disabled',
  ...['created', 'updated', 'deleted'].map((e) => `feedbackflow.${e}`),
  ...['created', 'sent', 'reminded', 'opened', 'completed', 'suppressed', 'failed', 'expired', 'cancelled'].map((e) => `feedbackrequest.${e}`),
  ...['alertrule', 'replytemplate'].flatMap((r) => ['created', 'updated', 'deleted'].map((e) => `${r}.${e}`)),
  'case.opened',
  'case.updated',
  'case.recovered',
  'casemessage.created',
  'casemessage.updated',
  'offer.created',
  'offer.redeemed',
  ...['created', 'deleted', 'accepted'].map((e) => `invitation.${e}`),
  // The day's first automated message held by a spent budget (src/modules/sending): the owner is told once a day.
  'sendingbudget.reached',
];
