import { Field, InputType } from 'type-graphql';
import { StringFilter, TimestampFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import type { MembershipRole } from '../user/index.js';
import { MemberRoleEnum, MemberType } from './member.type.js';

@InputType('CreateMemberInput', { description: 'Someone to invite by e-mail, with a role (addMember).' })
export class CreateMemberInput {
  @Field({ description: 'An e-mail address: it is e-mailed an invitation, whether or not it has an account.' }) email!: string;
  @Field(() => MemberRoleEnum) role!: MembershipRole;
}

@InputType('UpdateMemberInput')
/** @public found by name by the CRUD resolvers (kit/graphql/owned.resolver.ts) */
export class UpdateMemberInput {
  @Field(() => MemberRoleEnum, { nullable: true }) role?: MembershipRole;
}

/** @public found by name by the CRUD resolvers (kit/graphql/owned.resolver.ts) */
export const [MemberList, MemberListArgs] = listInputs('Member', MemberType, {
  where: { role: StringFilter, updatedAt: TimestampFilter },
  orderBy: ['createdAt', 'updatedAt', 'role'],
});
