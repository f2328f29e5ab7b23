import { Arg, Authorized, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/index.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { AppError } from '../../shared/errors.js';
import { MemberType } from './member.type.js';
import { MemberAdditionType } from './member-addition.type.js';
import * as inputs from './member.inputs.js';
import * as members from './member.service.js';
import { createInvitation } from './invitation.service.js';

@Resolver(() => MemberType)
export class MemberResolver extends OwnedCrudResolver(MemberType, inputs, members.crud, {
  names: ['member', 'members'],
  descriptions: {
    update: "Changes a member's role. Owners only; the last owner cannot be demoted.",
    delete: 'Removes a member and revokes every token they hold for this business. Owners only; the last owner stays.',
  },
}) {
  @Authorized('members:write')
  @Mutation(() => MemberAdditionType, {
    description:
      'Adds someone by e-mail with a role, by invitation: the address is e-mailed a link (valid 7 days) and the person joins by accepting it, signing in or up. Always an Invitation, the same whether or not the address has an account. Owners only. What POST /v2/businesses/{business}/members runs.',
  })
  addMember(
    @Arg('business', () => ID) business: string,
    @Arg('input', () => inputs.CreateMemberInput) input: inputs.CreateMemberInput,
    @Ctx() context: GraphQLContext,
  ) {
    return createInvitation(context.em, business, input, context);
  }

  @Authorized('members:write')
  @Mutation(() => MemberType, {
    description: 'Retired: nobody is made a member without accepting. Answers BAD_USER_INPUT for every address.',
    deprecationReason: 'Members join by accepting an invitation: use addMember or createInvitation.',
  })
  createMember(@Arg('business', () => ID) business: string, @Arg('input', () => inputs.CreateMemberInput) _input: inputs.CreateMemberInput): MemberType {
    // The same answer whatever the address: whether it has an account is not the caller's to learn.
    throw new AppError(
      'bad_request',
      `Members join by accepting an invitation: use addMember (POST /v2/businesses/${business}/members) or createInvitation, which e-mail the address a link`,
    );
  }
}
