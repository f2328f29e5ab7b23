import { Field, ID, Int, ObjectType } from 'type-graphql';
import { ResourceType } from '../../kit/resource.type.js';

@ObjectType('AlertRuleWhen', { simpleResolvers: true, description: 'A completed submission matches when any one of the kinds given matches, within the locations and surveys given.' })
export class AlertRuleWhenType {
  @Field(() => Int, { nullable: true, description: "Any metric rating at most this, on that metric's own scale." })
  maxRating!: number | null;

  @Field(() => Int, { nullable: true, description: 'An NPS answer (0 to 10) at most this.' })
  maxNps!: number | null;

  @Field(() => [String], { nullable: true, description: 'A text answer holding one of these as whole words (case- and accent-insensitive).' })
  keywords!: string[] | null;

  @Field(() => [ID], { nullable: true, description: 'Only submissions of these locations; null: any.' })
  locations!: string[] | null;

  @Field(() => [ID], { nullable: true, description: 'Only submissions of these surveys; null: any.' })
  surveys!: string[] | null;
}

@ObjectType('AlertRecipient', { simpleResolvers: true, description: 'An address of a channel (`channel` and `to`), or every member with a role (`role`).' })
export class AlertRecipientType {
  @Field(() => String, { nullable: true, description: 'email or sms.' })
  channel!: string | null;

  @Field(() => String, { nullable: true, description: 'The e-mail address or the phone number (E.164).' })
  to!: string | null;

  @Field(() => String, { nullable: true, description: "owner or manager: every member of the business with that role, at their account's e-mail address." })
  role!: string | null;
}

@ObjectType('AlertRule', { simpleResolvers: true, description: 'Which answers open a case, and who is told at once.' })
export class AlertRuleType extends ResourceType {
  business!: string;

  @Field()
  name!: string;

  @Field()
  enabled!: boolean;

  @Field({ description: 'normal or urgent.' })
  severity!: string;

  @Field(() => AlertRuleWhenType)
  when!: AlertRuleWhenType;

  @Field(() => [AlertRecipientType])
  notify!: AlertRecipientType[];

  @Field(() => Int, { nullable: true, description: 'Urgent rules: a case still open and unassigned this many minutes after it opened notifies the owners, once.' })
  escalateAfterMinutes!: number | null;
}
