import { Field, ID, Int, ObjectType } from 'type-graphql';
import { ResourceType } from '../../kit/graphql/resource.type.js';
import { Timestamp } from '../../kit/graphql/scalars.js';

@ObjectType('AlertRuleWhen', {
  simpleResolvers: true,
  description: 'A completed submission matches when any one of the kinds given matches, within the locations and surveys given.',
})
export class AlertRuleWhenType {
  @Field(() => Int, { nullable: true, description: "Any metric rating at most this, on that metric's own scale." })
  maxRating!: number | null;

  @Field(() => Int, { nullable: true, description: 'An NPS answer (0 to 10) at most this.' })
  maxNps!: number | null;

  @Field(() => [String], { nullable: true, description: 'A text answer holding one of these as whole words (case- and accent-insensitive).' })
  keywords!: string[] | null;

  @Field(() => [String], { nullable: true, description: 'A text answer read by the workers as speaking of one of these themes (with `sentiment`, read so).' })
  themes!: string[] | null;

  @Field(() => String, {
    nullable: true,
    description: 'positive, neutral or negative: with `themes`, the theme read so; alone, a text answer read so as a whole.',
  })
  sentiment!: string | null;

  @Field(() => [ID], { nullable: true, description: 'Only submissions of these locations; null: any.' })
  locations!: string[] | null;

  @Field(() => [ID], { nullable: true, description: 'Only submissions of these surveys; null: any.' })
  surveys!: string[] | null;
}

@ObjectType('AlertRecipient', {
  simpleResolvers: true,
  description:
    'A member of the business (`member`), every member with a role (`role`), or an address of a channel outside the business (`channel` and `to`), told only once it confirmed.',
})
export class AlertRecipientType {
  @Field(() => String, { nullable: true, description: 'email or sms.' })
  channel!: string | null;

  @Field(() => String, { nullable: true, description: 'The e-mail address or the phone number (E.164).' })
  to!: string | null;

  @Field(() => String, { nullable: true, description: "owner or manager: every member of the business with that role, at their account's e-mail address." })
  role!: string | null;

  @Field(() => ID, { nullable: true, description: "A member of the business (mem_…), at their account's e-mail address." })
  member!: string | null;

  @Field({
    description:
      'member (a member or a role: told, no confirmation asked), removed (a member no longer in the business: told nothing), pending (an outside address or number sent one confirmation and told nothing else until it agrees), confirmed (told since `confirmedAt`) or declined (never messaged by this business again).',
  })
  status!: string;

  @Field(() => Timestamp, { nullable: true, description: 'When an outside recipient confirmed.' })
  confirmedAt!: Date | null;

  @Field(() => Timestamp, {
    nullable: true,
    description: 'When an outside recipient was first named and sent its one confirmation; null for members and roles.',
  })
  askedAt!: Date | null;
}

/** A recipient as a rule stores it, without what its consent says: what events carry. */
export type StoredRecipient = Omit<AlertRecipientType, 'status' | 'confirmedAt' | 'askedAt'>;

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

  /** Answered with each recipient's status by the resolver (alert-rule.resolver.ts); events carry it as stored. */
  @Field(() => [AlertRecipientType], { description: 'Who is told of a match, each with whether they may be.' })
  notify!: StoredRecipient[];

  @Field(() => Int, {
    nullable: true,
    description: 'Urgent rules: a case still open and unassigned this many minutes after it opened notifies the owners, once.',
  })
  escalateAfterMinutes!: number | null;
}
