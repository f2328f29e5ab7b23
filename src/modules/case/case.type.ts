import { Field, ID, ObjectType } from 'type-graphql';
import { ResourceType } from '../../kit/graphql/resource.type.js';
import { Timestamp } from '../../kit/graphql/scalars.js';

@ObjectType('CaseGuest', { simpleResolvers: true, description: 'The guest as the order (or the answer) names them; null fields: not known.' })
export class CaseGuestType {
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String, { nullable: true }) email!: string | null;
  @Field(() => String, { nullable: true, description: 'E.164.' }) phone!: string | null;
}

@ObjectType('CaseRecovery', {
  simpleResolvers: true,
  description: 'The order that brought the guest back, and the offer it redeemed (null: the guest came back on their own).',
})
export class CaseRecoveryType {
  @Field(() => ID) order!: string;
  @Field(() => ID, { nullable: true }) offer!: string | null;
}

@ObjectType('Case', {
  simpleResolvers: true,
  description: "An unhappy guest's answer that an alert rule matched, followed until the restaurant has answered and the guest came back.",
})
export class CaseType extends ResourceType {
  business!: string;
  submissionId!: string;
  orderId!: string | null;
  locationId!: string | null;

  @Field(() => ID, { nullable: true, description: 'null once the survey is deleted.' })
  survey!: string | null;

  @Field(() => ID, { nullable: true, description: 'The alert rule that opened it; null once deleted.' })
  rule!: string | null;

  @Field({ description: 'normal or urgent.' })
  severity!: string;

  @Field({ description: 'open, replied (the restaurant has answered), resolved or recovered (the guest came back).' })
  status!: string;

  @Field(() => ID, { nullable: true, description: 'The member (`mem_...`) it is assigned to.' })
  assignee!: string | null;

  @Field({ description: 'What matched, e.g. "Food quality 1 of 5", "keyword: allergic".' })
  reason!: string;

  @Field(() => CaseGuestType)
  guest!: CaseGuestType;

  @Field(() => Timestamp)
  openedAt!: Date;

  @Field(() => Timestamp, { nullable: true })
  firstReplyAt!: Date | null;

  @Field(() => Timestamp, { nullable: true })
  resolvedAt!: Date | null;

  @Field(() => Timestamp, { nullable: true })
  recoveredAt!: Date | null;

  @Field(() => CaseRecoveryType, { nullable: true })
  recoveredBy!: CaseRecoveryType | null;
}
