import { Field, ID, ObjectType } from 'type-graphql';
import { ResourceType } from '../../kit/graphql/resource.type.js';
import { Timestamp } from '../../kit/graphql/scalars.js';
import type { MembershipRole } from '../user/index.js';
import { MemberRoleEnum } from './member.type.js';

@ObjectType('Invitation', {
  simpleResolvers: true,
  description:
    'An invitation of an e-mail address to join the business with a role, pending until accepted (it then becomes a Member) or deleted. Its link is e-mailed, valid 7 days.',
})
export class InvitationType extends ResourceType {
  business!: string;

  @Field({ description: 'The invited address (lower case).' })
  email!: string;

  @Field(() => MemberRoleEnum)
  role!: MembershipRole;

  @Field(() => ID, { nullable: true, description: 'The owner who invited (`user_...`), null when the operator did.' })
  invitedBy!: string | null;

  @Field(() => Timestamp, { description: 'When the link stops working: milliseconds since the Unix epoch.' })
  expiresAt!: Date;
}
