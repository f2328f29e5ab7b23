import { Field, ID, InputType, Int } from 'type-graphql';
import { BooleanFilter, StringFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import { updateInputOf } from '../../kit/graphql/update.input.js';
import { AlertRuleType } from './alert-rule.type.js';

@InputType('AlertRuleWhenInput')
export class AlertRuleWhenInput {
  @Field(() => Int, { nullable: true, description: "Any metric rating at most this, on that metric's own scale." }) maxRating?: number | null;
  @Field(() => Int, { nullable: true, description: 'An NPS answer at most this (0 to 10).' }) maxNps?: number | null;
  @Field(() => [String], { nullable: true, description: 'Words or phrases (at most 50), matched as whole words, case- and accent-insensitive.' }) keywords?:
    | string[]
    | null;
  @Field(() => [String], {
    nullable: true,
    description: "Themes (at most 20), built in or the business's own: a text answer read as speaking of one, once the workers analysed it.",
  })
  themes?: string[] | null;
  @Field(() => String, {
    nullable: true,
    description: 'positive, neutral or negative. With themes: one of them read so; alone: a text answer read so as a whole.',
  })
  sentiment?: string | null;
  @Field(() => [ID], { nullable: true, description: 'Locations of this business; omitted: any.' }) locations?: string[] | null;
  @Field(() => [ID], { nullable: true, description: 'Surveys of this business; omitted: any.' }) surveys?: string[] | null;
}

@InputType('AlertRecipientInput', { description: 'One of member, role, or channel and to.' })
export class AlertRecipientInput {
  @Field(() => String, {
    nullable: true,
    description: 'email or sms, with `to`: an address outside the business, sent one confirmation and told nothing else until it agrees.',
  })
  channel?: string | null;
  @Field(() => String, { nullable: true, description: 'An e-mail address, or a phone number in E.164.' }) to?: string | null;
  @Field(() => String, { nullable: true, description: "owner or manager: every member with that role, at their account's e-mail." }) role?: string | null;
  @Field(() => ID, { nullable: true, description: "A member of this business (mem_…), at their account's e-mail." }) member?: string | null;
}

@InputType('CreateAlertRuleInput')
export class CreateAlertRuleInput {
  @Field() name!: string;
  @Field(() => Boolean, { nullable: true, description: 'Default true.' }) enabled?: boolean;
  @Field(() => String, { nullable: true, description: 'normal (default) or urgent.' }) severity?: string;
  @Field(() => AlertRuleWhenInput, { description: 'At least one of maxRating, maxNps, keywords, themes and sentiment.' }) when!: AlertRuleWhenInput;
  @Field(() => [AlertRecipientInput], { description: 'One to 20 recipients.' }) notify!: AlertRecipientInput[];
  @Field(() => Int, { nullable: true, description: 'Urgent rules only: 1 to 10080.' }) escalateAfterMinutes?: number | null;
}

export const UpdateAlertRuleInput = updateInputOf('UpdateAlertRuleInput', CreateAlertRuleInput, {
  descriptions: { when: 'Replaces the whole condition.', notify: 'Replaces every recipient.', escalateAfterMinutes: 'null: no escalation.' },
});
export type UpdateAlertRuleInput = InstanceType<typeof UpdateAlertRuleInput>;

export const [AlertRuleList, AlertRuleListArgs] = listInputs('AlertRule', AlertRuleType, {
  where: { name: StringFilter, enabled: BooleanFilter, severity: StringFilter },
  orderBy: ['createdAt', 'updatedAt', 'name'],
});
