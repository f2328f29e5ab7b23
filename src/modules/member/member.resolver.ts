import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/business.resolver.js';
import { MemberType } from './member.type.js';
import * as inputs from './member.inputs.js';
import * as members from './member.service.js';

@Resolver(() => MemberType)
export class MemberResolver extends OwnedCrudResolver(MemberType, inputs, members.crud, {
  names: ['member', 'members'],
  descriptions: {
    create: 'Adds a user who already has an account, by e-mail, with a role. Owners only.',
    update: "Changes a member's role. Owners only; the last owner cannot be demoted.",
    delete: 'Removes a member and revokes every token they hold for this business. Owners only; the last owner stays.',
  },
}) {}
