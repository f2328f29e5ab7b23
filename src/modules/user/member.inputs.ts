import { Field, InputType } from 'type-graphql';
import { IDFilter, listArgs, listType, orderByInput, StringFilter, TimestampFilter } from '../../kit/list.args.js';
import type { MembershipRole } from './membership.entity.js';
import { MemberRoleEnum, MemberType } from './member.type.js';

@InputType('CreateMemberInput', { description: 'Adds an existing user (found by e-mail) to the business.' })
export class CreateMemberInput {
  @Field({ description: 'The e-mail of a user who already has an account.' }) email!: string;
  @Field(() => MemberRoleEnum) role!: MembershipRole;
}

@InputType('UpdateMemberInput')
export class UpdateMemberInput {
  @Field(() => MemberRoleEnum, { nullable: true }) role?: MembershipRole;
}

@InputType('MemberWhere')
export class MemberWhere {
  @Field(() => IDFilter, { nullable: true }) id?: IDFilter;
  @Field(() => StringFilter, { nullable: true }) role?: StringFilter;
  @Field(() => TimestampFilter, { nullable: true }) createdAt?: TimestampFilter;
  @Field(() => TimestampFilter, { nullable: true }) updatedAt?: TimestampFilter;
}

export const MemberOrderBy = orderByInput('MemberOrderBy', { createdAt: 'createdAt', updatedAt: 'updatedAt', role: 'role' });
export const MemberListArgs = listArgs(MemberWhere, MemberOrderBy);
export const MemberList = listType(MemberType, 'MemberList');
