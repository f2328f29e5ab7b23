import { Field, Int, ObjectType } from 'type-graphql';
import { ResourceType } from '../../kit/graphql/resource.type.js';
import { Timestamp } from '../../kit/graphql/scalars.js';

@ObjectType('WebhookDeliveryAttempt', { simpleResolvers: true, description: 'One try of a delivery.' })
export class WebhookDeliveryAttemptType {
  @Field(() => Timestamp, { description: 'When it started.' })
  at!: number;

  @Field(() => Int)
  durationMs!: number;

  @Field(() => Int, { nullable: true, description: 'The HTTP status the receiver answered; null when no answer came.' })
  responseStatus!: number | null;

  @Field(() => String, { nullable: true, description: 'The first 4 KiB of the answer.' })
  responseBody!: string | null;

  @Field(() => String, { nullable: true, description: 'null on a 2xx; else timeout, connect, dns, tls, http_status or blocked_address.' })
  error!: string | null;
}

@ObjectType('WebhookDelivery', {
  simpleResolvers: true,
  description: 'One event sent to one webhook: every attempt, and what comes next. Its id is the `webhook-id` header, the same on every retry.',
})
export class WebhookDeliveryType extends ResourceType {
  business!: string;
  webhook!: string;
  event!: string;

  @Field({ description: 'The event type, e.g. order.created.' })
  eventType!: string;

  @Field({ description: 'pending (not tried yet), succeeded (an attempt got a 2xx), failed (retry scheduled) or exhausted (no more retries).' })
  status!: string;

  @Field(() => Int)
  attemptCount!: number;

  @Field(() => Timestamp, { nullable: true, description: 'When the next attempt is due; null when none is scheduled.' })
  nextAttemptAt!: Date | null;

  @Field(() => [WebhookDeliveryAttemptType])
  attempts!: WebhookDeliveryAttemptType[];
}

@ObjectType('WebhookRecovery', { simpleResolvers: true, description: 'What recoverWebhook scheduled again.' })
export class WebhookRecoveryType {
  @Field({ description: 'Always "webhookrecovery".' })
  object!: string;

  @Field(() => Int, { description: 'How many failed or exhausted deliveries are sent again.' })
  redelivered!: number;
}
