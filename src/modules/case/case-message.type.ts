import { Field, ID, ObjectType } from 'type-graphql';
import { ResourceType } from '../../kit/graphql/resource.type.js';

@ObjectType('CaseMessage', {
  simpleResolvers: true,
  description: "A message of a case's thread: the restaurant's reply to the guest, or the guest's SMS back.",
})
export class CaseMessageType extends ResourceType {
  business!: string;

  @Field(() => ID)
  case!: string;

  @Field({ description: 'out (to the guest) or in (from the guest).' })
  direction!: string;

  @Field({ description: 'email or sms.' })
  channel!: string;

  @Field()
  body!: string;

  @Field({ description: 'queued, sent or failed (an inbound message is sent).' })
  status!: string;

  @Field(() => ID, { nullable: true, description: 'The user (`user_...`) who wrote it; null for the guest, or a token without a user.' })
  author!: string | null;

  @Field(() => String, { nullable: true, description: 'Why it failed, or why its last try failed while it is tried again; null once sent.' })
  error!: string | null;
}
