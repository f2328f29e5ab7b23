import { Field, InputType } from 'type-graphql';
import { IDFilter, listArgs, listType, orderByInput, StringFilter, TimestampFilter } from '../../kit/list.args.js';
import { EventType } from './event.type.js';

@InputType('EventWhere')
export class EventWhere {
  @Field(() => IDFilter, { nullable: true }) id?: IDFilter;
  @Field(() => StringFilter, { nullable: true }) type?: StringFilter;
  @Field(() => TimestampFilter, { nullable: true }) createdAt?: TimestampFilter;
}

export const EventOrderBy = orderByInput('EventOrderBy', { createdAt: 'createdAt', type: 'type' });
export const EventListArgs = listArgs(EventWhere, EventOrderBy);
export const EventList = listType(EventType, 'EventList');

/** Every event type the service writes; webhooks subscribe to these or to `*`. */
export const EVENT_TYPES = [
  ...['survey', 'surveystep', 'metric', 'location', 'webhook', 'submission', 'credential', 'member'].flatMap((r) => [`${r}.created`, `${r}.updated`, `${r}.deleted`]),
  'order.created',
  'order.updated',
  'webhook.disabled',
  ...['created', 'updated', 'deleted'].map((e) => `feedbackflow.${e}`),
  ...['created', 'sent', 'reminded', 'opened', 'completed', 'suppressed', 'failed', 'expired', 'cancelled'].map((e) => `feedbackrequest.${e}`),
];
