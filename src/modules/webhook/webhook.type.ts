import { Field, ObjectType } from 'type-graphql';
import { ResourceType } from '../../kit/graphql/resource.type.js';

@ObjectType('Webhook', { simpleResolvers: true, description: 'An outbound subscription: events of the listed types are posted to `url`, signed.' })
export class WebhookType extends ResourceType {
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
}
