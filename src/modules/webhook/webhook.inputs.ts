import { Field, InputType } from 'type-graphql';
import { BooleanFilter, IDFilter, listArgs, listType, orderByInput, StringFilter, TimestampFilter } from '../../kit/list.args.js';
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

@InputType('WebhookWhere')
export class WebhookWhere {
  @Field(() => IDFilter, { nullable: true }) id?: IDFilter;
  @Field(() => StringFilter, { nullable: true }) url?: StringFilter;
  @Field(() => BooleanFilter, { nullable: true }) enabled?: BooleanFilter;
  @Field(() => TimestampFilter, { nullable: true }) createdAt?: TimestampFilter;
  @Field(() => TimestampFilter, { nullable: true }) updatedAt?: TimestampFilter;
}

export const WebhookOrderBy = orderByInput('WebhookOrderBy', { createdAt: 'createdAt', updatedAt: 'updatedAt', url: 'url' });
export const WebhookListArgs = listArgs(WebhookWhere, WebhookOrderBy);
export const WebhookList = listType(WebhookType, 'WebhookList');
