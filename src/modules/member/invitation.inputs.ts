import { Field, InputType } from 'type-graphql';
import { StringFilter, TimestampFilter } from '../../kit/list/list.args.js';
import { listInputs } from '../../kit/list/list.inputs.js';
import type { MembershipRole } from '../user/index.js';
import { MemberRoleEnum } from './member.type.js';
import { InvitationType } from './invitation.type.js';

@InputType('CreateInvitationInput', { description: 'Invites an e-mail address; the link e-mailed to it signs up (or signs in) and joins with the role.' })
export class CreateInvitationInput {
  @Field() email!: string;
  @Field(() => MemberRoleEnum) role!: MembershipRole;
}

export const [InvitationList, InvitationListArgs] = listInputs('Invitation', InvitationType, {
  where: { email: StringFilter, role: StringFilter, expiresAt: TimestampFilter },
  orderBy: ['createdAt', 'expiresAt', 'email'],
});
