import { Arg, Authorized, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/business.resolver.js';
import type { GraphQLContext } from '../../kit/context.js';
import { MemberType } from './member.type.js';
import { MemberAdditionType } from './member-addition.type.js';
import * as inputs from './member.inputs.js';
import * as members from './member.service.js';
import { addMember } from './member-addition.service.js';

@Resolver(() => MemberType)
export class MemberResolver extends OwnedCrudResolver(MemberType, inputs, members.crud, {
  names: ['member', 'members'],
  descriptions: {
    create: 'Adds a user who already has an account, by e-mail, with a role. Owners only. addMember also invites an address without an account.',
    update: "Changes a member's role. Owners only; the last owner cannot be demoted.",
    delete: 'Removes a member and revokes every token they hold for this business. Owners only; the last owner stays.',
  },
}) {
  @Authorized('members:write')
  @Mutation(() => MemberAdditionType, {
    description: 'Adds someone by e-mail with a role: a user with an account joins at once (a Member); an address without one is invited (an Invitation, its link e-mailed, valid 7 days). Owners only. What POST /v2/businesses/{business}/members runs.',
  })
  addMember(@Arg('business', () => ID) business: string, @Arg('input', () => inputs.CreateMemberInput) input: inputs.CreateMemberInput, @Ctx() { em, auth }: GraphQLContext) {
    return addMember(em, business, input, auth);
  }
}
