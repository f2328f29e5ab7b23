import { Field, InputType } from 'type-graphql';
import { IDFilter, StringFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { Timestamp } from '../../kit/graphql/scalars.js';
import { WebhookDeliveryType } from './webhook-delivery.type.js';

export const [WebhookDeliveryList, WebhookDeliveryListArgs] = listInputs('WebhookDelivery', WebhookDeliveryType, {
  where: {
    status: { filter: StringFilter, description: 'pending, succeeded, failed or exhausted.' },
    event: { filter: IDFilter, description: 'The event id.' },
    eventType: StringFilter,
  },
  orderBy: ['createdAt', 'nextAttemptAt'],
});

@InputType('RecoverWebhookInput')
export class RecoverWebhookInput {
  @Field(() => Timestamp, { description: 'Deliveries created at or after this time.' }) since!: Date;
  @Field(() => Timestamp, { nullable: true, description: 'Deliveries created before this time; default now.' }) until?: Date | null;
}
