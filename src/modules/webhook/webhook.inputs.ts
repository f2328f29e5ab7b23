import { Field, InputType } from 'type-graphql';
import { BooleanFilter, StringFilter, TimestampFilter } from '../../kit/list.args.js';
import { listInputs } from '../../kit/list.inputs.js';
import { WebhookType } from './webhook.type.js';

@InputType('CreateWebhookInput')
export class CreateWebhookInput {
  @Field() url!: string;
  @Field(() => [String], { description: 'Event types, or ["*"].' }) events!: string[];
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Default true.' }) enabled?: boolean;
}

@InputType('UpdateWebhookInput')
export class UpdateWebhookInput {
  @Field(() => String, { nullable: true }) url?: string;
  @Field(() => [String], { nullable: true }) events?: string[];
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => Boolean, { nullable: true }) enabled?: boolean;
}

export const [WebhookList, WebhookListArgs] = listInputs('Webhook', WebhookType, {
  where: { url: StringFilter, enabled: BooleanFilter, updatedAt: TimestampFilter },
  orderBy: ['createdAt', 'updatedAt', 'url'],
});
