import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { ResourceType } from '../../kit/graphql/resource.type.js';
import { MEMBERSHIP_ROLES, type MembershipRole } from '../user/index.js';

export const MemberRoleEnum = Object.fromEntries(MEMBERSHIP_ROLES.map((r) => [r, r])) as { [K in MembershipRole]: K };
registerEnumType(MemberRoleEnum, {
  name: 'MemberRole',
  description:
    'owner: everything, and only owners change members; manager: everything but members:write; staff: reading surveys, answers, orders, metrics, locations and analytics.',
});

@ObjectType('Member', {
  simpleResolvers: true,
  description: 'A user who works for the business, with a role. The membership row is the member: its id is `mem_...`.',
})
export class MemberType extends ResourceType {
  business!: string;

  @Field(() => ID, { description: 'The user (`user_...`).' })
  user!: string;

  @Field({ description: "The user's e-mail address (lower case)." })
  email!: string;

  @Field(() => String, { nullable: true })
  name!: string | null;

  @Field(() => MemberRoleEnum)
  role!: MembershipRole;
}
