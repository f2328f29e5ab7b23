import { Field, Int, ObjectType } from 'type-graphql';
import { Timestamp } from '../../kit/graphql/scalars.js';

@ObjectType('SendingBudget', {
  simpleResolvers: true,
  description:
    'What the business may still send today on one channel. Every message counts: feedback requests and reminders, alerts, replies and offers to guests, invitations. An API send past a budget is refused (429 naming it); an automated one is held until the budget resets, and counted in `held`.',
})
export class SendingBudgetType {
  @Field({ description: '"email" or "sms".' })
  channel!: string;

  @Field(() => Int, { description: 'Messages a day on this channel (smaller while the business is new: see growsAt).' })
  limit!: number;

  @Field(() => Int, { description: 'Messages sent (or accepted to send) today.' })
  used!: number;

  @Field(() => Int, { description: 'limit - used: what is left today.' })
  remaining!: number;

  @Field(() => Int, { description: 'Automated messages held today because the budget was spent; they go after it resets.' })
  held!: number;

  @Field(() => Int, { description: 'Messages a day to one guest on this channel from this business.' })
  perGuest!: number;

  @Field(() => Timestamp, { description: "When the day's counts start again: the next midnight UTC." })
  resetsAt!: Date;

  @Field(() => Timestamp, { nullable: true, description: "When the limit grows to an established business's; null once it has." })
  growsAt!: Date | null;
}
