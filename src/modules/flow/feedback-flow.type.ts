import { Field, Int, ObjectType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { ResourceType } from '../../kit/graphql/resource.type.js';
import { Timestamp } from '../../kit/graphql/scalars.js';

@ObjectType('QuietHours', {
  simpleResolvers: true,
  description: 'No message goes out between from and to (local time where the guest ordered); a send due inside waits for the end.',
})
export class QuietHoursType {
  @Field({ description: '"HH:MM"' }) from!: string;
  @Field({ description: '"HH:MM"; may be before from (the window wraps past midnight).' }) to!: string;
  @Field(() => String, {
    nullable: true,
    description: 'IANA time zone, e.g. "Asia/Karachi"; null: the time zone of the order\'s location, else the business\'s, else UTC.',
  })
  timeZone!: string | null;
}

@ObjectType('FeedbackFlow', {
  simpleResolvers: true,
  description: 'After an order: which guests are asked (trigger, conditions), for which survey, by which channels, when, and how often at most.',
})
export class FeedbackFlowType extends ResourceType {
  business!: string;

  @Field() name!: string;
  @Field() enabled!: boolean;
  @Field(() => Int, { description: 'Lower first: the first enabled flow that matches an order wins.' }) priority!: number;
  @Field({ description: 'order.created or order.accepted.' }) trigger!: string;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: 'channel, location (externalLocationId values), minTotal, metadata, hasEmail, hasPhone; null matches every order.',
  })
  conditions!: Record<string, unknown> | null;
  @Field(() => String, { description: 'The survey id.' }) survey!: string;
  @Field(() => [String], { description: 'email and/or sms, in fallback order.' }) channels!: string[];
  @Field(() => Int) delayMinutes!: number;
  @Field(() => QuietHoursType, { nullable: true }) quietHours!: QuietHoursType | null;
  @Field(() => Int, { description: 'At most one request per customer per business in this many days; 0: no limit.' }) throttleDays!: number;
  @Field(() => Int, { nullable: true }) reminderAfterHours!: number | null;
  @Field(() => Int) expiresAfterHours!: number;
  @Field(() => GraphQLJSONObject, { description: 'Per language: {"en": {"subject": "...", "body": "... {{link}} ..."}}.' })
  templates!: Record<string, unknown>;
}

@ObjectType('FeedbackFlowDefaults', { simpleResolvers: true, description: 'What a new flow gets for each setting its creator leaves out.' })
export class FeedbackFlowDefaultsType {
  @Field(() => Int, { description: 'Minutes after the order: an hour, when a dine-in guest has eaten and a delivery has arrived.' }) delayMinutes!: number;
  @Field(() => QuietHoursType, { description: "Late evening to morning, in the time zone of the order's location." }) quietHours!: QuietHoursType;
  @Field(() => Int) throttleDays!: number;
  @Field(() => Int) expiresAfterHours!: number;
  @Field(() => GraphQLJSONObject) templates!: Record<string, unknown>;
}

@ObjectType('FeedbackRequest', {
  simpleResolvers: true,
  description: 'One ask of one guest about one order: scheduled, sent, opened, completed; or suppressed, failed, expired, cancelled.',
})
export class FeedbackRequestType extends ResourceType {
  business!: string;

  @Field(() => String, { nullable: true, description: 'The flow id (null once the flow is deleted).' }) flow!: string | null;
  @Field(() => String, { description: 'The order id.' }) order!: string;
  @Field(() => String, { description: 'The survey id.' }) survey!: string;
  @Field() trigger!: string;
  @Field() status!: string;
  @Field(() => String, {
    nullable: true,
    description: 'Why it was suppressed or cancelled: throttled, opted_out, no_contact, quiet_hours, order_too_old, answered, flow_disabled, flow_deleted.',
  })
  reason!: string | null;
  @Field(() => String, { nullable: true, description: "The sender's error, when failed." }) error!: string | null;
  @Field(() => String, { nullable: true, description: 'email or sms, once sent.' }) channel!: string | null;
  @Field(() => Timestamp) sendAt!: Date;
  @Field(() => Timestamp, { nullable: true }) sentAt!: Date | null;
  @Field(() => Timestamp, { nullable: true }) remindedAt!: Date | null;
  @Field(() => Timestamp, { nullable: true }) openedAt!: Date | null;
  @Field(() => Timestamp, { nullable: true }) completedAt!: Date | null;
  @Field(() => Timestamp) expiresAt!: Date;
}

@ObjectType('FeedbackFlowSimulation', { simpleResolvers: true, description: 'What a flow would do with an order: nothing is stored or sent.' })
export class FeedbackFlowSimulationType {
  @Field({ description: 'Always "feedbackflowsimulation".' }) object!: string;
  @Field() matches!: boolean;
  @Field(() => [String], { description: 'Why it does not match or would not send (empty when it would).' }) reasons!: string[];
  @Field(() => Timestamp, { nullable: true, description: 'When it would send (after the delay and quiet hours).' }) sendAt!: Date | null;
  @Field(() => String, { nullable: true }) channel!: string | null;
  @Field(() => String, { nullable: true }) subject!: string | null;
  @Field(() => String, { nullable: true }) body!: string | null;
  @Field(() => String, { nullable: true, description: 'throttled, opted_out, no_contact, quiet_hours or order_too_old, when one would apply.' }) suppression!:
    | string
    | null;
  @Field(() => String, {
    nullable: true,
    description:
      "The time zone the flow's quiet hours are read in for this order (their own, else the order's location's, else the business's); null when they do not apply: the flow has none, or no time zone is known.",
  })
  quietHoursTimeZone!: string | null;
}

@ObjectType('FeedbackSuppression', {
  simpleResolvers: true,
  description: 'A contact that asked not to be asked again, on one channel (stored as a hash only).',
})
export class FeedbackSuppressionType {
  @Field() id!: string;
  @Field({ description: 'Always "feedbacksuppression".' }) object!: string;
  @Field() channel!: string;
  @Field({ description: 'unsubscribe, stop or api.' }) source!: string;
  @Field(() => Timestamp) createdAt!: Date;
}
