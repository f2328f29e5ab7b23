import { Field, InputType } from 'type-graphql';
import { IDFilter, listArgs, listType, orderByInput, StringFilter, TimestampFilter } from '../../kit/list.args.js';
import { Timestamp } from '../../kit/scalars.js';
import { WebhookDeliveryType } from './webhook-delivery.type.js';

@InputType('WebhookDeliveryWhere')
export class WebhookDeliveryWhere {
  @Field(() => IDFilter, { nullable: true }) id?: IDFilter;
  @Field(() => StringFilter, { nullable: true, description: 'pending, succeeded, failed or exhausted.' }) status?: StringFilter;
  @Field(() => IDFilter, { nullable: true, description: 'The event id.' }) event?: IDFilter;
  @Field(() => StringFilter, { nullable: true }) eventType?: StringFilter;
  @Field(() => TimestampFilter, { nullable: true }) createdAt?: TimestampFilter;
}

export const WebhookDeliveryOrderBy = orderByInput('WebhookDeliveryOrderBy', { createdAt: 'createdAt', nextAttemptAt: 'nextAttemptAt' });
export const WebhookDeliveryListArgs = listArgs(WebhookDeliveryWhere, WebhookDeliveryOrderBy);
export const WebhookDeliveryList = listType(WebhookDeliveryType, 'WebhookDeliveryList');

@InputType('RecoverWebhookInput')
export class RecoverWebhookInput {
  @Field(() => Timestamp, { description: 'Deliveries created at or after this time.' }) since!: Date;
  @Field(() => Timestamp, { nullable: true, description: 'Deliveries created before this time; default now.' }) until?: Date | null;
}
