import { Field, InputType } from 'type-graphql';
import { BooleanFilter, StringFilter, TimestampFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { updateInputOf } from '../../kit/graphql/update.input.js';
import { WebhookType } from './webhook.type.js';

@InputType('CreateWebhookInput')
export class CreateWebhookInput {
  @Field() url!: string;
  @Field(() => [String], { description: 'Event types, or ["*"].' }) events!: string[];
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'Default true.' }) enabled?: boolean;
}

export const UpdateWebhookInput = updateInputOf('UpdateWebhookInput', CreateWebhookInput);
export type UpdateWebhookInput = InstanceType<typeof UpdateWebhookInput>;

export const [WebhookList, WebhookListArgs] = listInputs('Webhook', WebhookType, {
  where: { url: StringFilter, enabled: BooleanFilter, updatedAt: TimestampFilter },
  orderBy: ['createdAt', 'updatedAt', 'url'],
});
