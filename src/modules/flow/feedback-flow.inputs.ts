import { Field, InputType, Int } from 'type-graphql';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { BooleanFilter, IDFilter, StringFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { updateInputOf } from '../../kit/graphql/update.input.js';
import { FeedbackFlowType, FeedbackRequestType } from './feedback-flow.type.js';
import { FLOW_DEFAULTS } from './feedback-flow.rules.js';

@InputType('CreateFeedbackFlowInput')
export class CreateFeedbackFlowInput {
  @Field() name!: string;
  @Field(() => Boolean, { nullable: true, description: 'Default true.' }) enabled?: boolean;
  @Field(() => Int, { nullable: true, description: 'Default 0; lower first.' }) priority?: number;
  @Field(() => String, { nullable: true, description: 'order.created (default) or order.accepted.' }) trigger?: string;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Omitted or null: every order.' }) conditions?: Record<string, unknown> | null;
  @Field(() => String, { description: 'A survey of this business.' }) survey!: string;
  @Field(() => [String], { nullable: true, description: 'Default ["email", "sms"].' }) channels?: string[];
  @Field(() => Int, { nullable: true, description: `Default ${FLOW_DEFAULTS.delayMinutes}; 0 sends at once; at most 43200 (30 days).` }) delayMinutes?: number;
  @Field(() => GraphQLJSONObject, {
    nullable: true,
    description: `Default ${JSON.stringify(FLOW_DEFAULTS.quietHours)}, read in the time zone of the order's location (else the business's, else UTC); a timeZone of their own overrides it; null: none.`,
  })
  quietHours?: Record<string, unknown> | null;
  @Field(() => Int, { nullable: true, description: `Default ${FLOW_DEFAULTS.throttleDays}; 0: no limit.` }) throttleDays?: number;
  @Field(() => Int, { nullable: true, description: 'One reminder this many hours after the send, if not completed.' }) reminderAfterHours?: number | null;
  @Field(() => Int, { nullable: true, description: `Default ${FLOW_DEFAULTS.expiresAfterHours}.` }) expiresAfterHours?: number;
  @Field(() => GraphQLJSONObject, { nullable: true, description: 'Default an English template.' }) templates?: Record<string, unknown>;
}

export const UpdateFeedbackFlowInput = updateInputOf('UpdateFeedbackFlowInput', CreateFeedbackFlowInput);
export type UpdateFeedbackFlowInput = InstanceType<typeof UpdateFeedbackFlowInput>;

@InputType('SimulateFeedbackFlowInput')
export class SimulateFeedbackFlowInput {
  @Field(() => GraphQLJSON, { description: 'An order id ("ord_...") or order fields as the webhook takes them.' }) order!: unknown;
}

@InputType('SuppressFeedbackContactInput')
export class SuppressFeedbackContactInput {
  @Field(() => String, { nullable: true }) email?: string;
  @Field(() => String, { nullable: true, description: 'E.164, or national in the business country.' }) phone?: string;
}

/** @public found by name by the CRUD resolvers (kit/graphql/owned.resolver.ts) */
export const [FeedbackFlowList, FeedbackFlowListArgs] = listInputs('FeedbackFlow', FeedbackFlowType, {
  where: { name: StringFilter, enabled: BooleanFilter, trigger: StringFilter },
  orderBy: ['createdAt', 'updatedAt', 'name', 'priority'],
});

/** @public found by name by the CRUD resolvers (kit/graphql/owned.resolver.ts) */
export const [FeedbackRequestList, FeedbackRequestListArgs] = listInputs('FeedbackRequest', FeedbackRequestType, {
  where: {
    status: { filter: StringFilter, description: 'scheduled, sent, opened, completed, suppressed, failed, expired or cancelled.' },
    order: IDFilter,
    flow: IDFilter,
  },
  orderBy: ['createdAt', 'sendAt'],
});
