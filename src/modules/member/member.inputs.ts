import { Field, InputType } from 'type-graphql';
import { StringFilter, TimestampFilter } from '../../kit/list.args.js';
import { listInputs } from '../../kit/list.inputs.js';
import type { MembershipRole } from '../user/membership.entity.js';
import { MemberRoleEnum, MemberType } from './member.type.js';

@InputType('CreateMemberInput', { description: 'Someone to add by e-mail, with a role.' })
export class CreateMemberInput {
  @Field({ description: 'An e-mail address: createMember needs a user who has an account; addMember invites an address without one.' }) email!: string;
  @Field(() => MemberRoleEnum) role!: MembershipRole;
}

@InputType('UpdateMemberInput')
export class UpdateMemberInput {
  @Field(() => MemberRoleEnum, { nullable: true }) role?: MembershipRole;
}

export const [MemberList, MemberListArgs] = listInputs('Member', MemberType, {
  where: { role: StringFilter, updatedAt: TimestampFilter },
  orderBy: ['createdAt', 'updatedAt', 'role'],
});
