import { Field, ID, ObjectType } from 'type-graphql';
import { Timestamp } from '../../graphql/scalars.js';

@ObjectType('Webhook', { description: 'An outbound subscription: events of the listed types are posted to `url`, signed.' })
export class WebhookType {
  @Field(() => ID)
  id!: string;

  @Field({ description: 'Always "webhook".' })
  object!: string;

  business!: string;

  @Field()
  url!: string;

  @Field(() => [String], { description: 'Event types, or ["*"] for all.' })
  events!: string[];

  @Field(() => String, { nullable: true })
  description?: string | null;

  @Field()
  enabled!: boolean;

  @Field(() => String, { nullable: true, description: 'The signing secret: in the createWebhook answer only, null everywhere else.' })
  secret?: string | null;

  @Field(() => Timestamp)
  createdAt!: Date;

  @Field(() => Timestamp)
  updatedAt!: Date;
}
