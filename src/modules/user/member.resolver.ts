import { Resolver } from 'type-graphql';
import { OwnedCrudResolver } from '../business/business-owned.resolver.js';
import { MemberType } from './member.type.js';
import { CreateMemberInput, MemberList, MemberListArgs, UpdateMemberInput } from './member.inputs.js';
import * as members from './member.service.js';

@Resolver(() => MemberType)
export class MemberResolver extends OwnedCrudResolver({
  type: MemberType,
  names: ['member', 'members'],
  list: [MemberList, MemberListArgs],
  inputs: [CreateMemberInput, UpdateMemberInput],
  descriptions: {
    create: 'Adds a user who already has an account, by e-mail, with a role. Owners only.',
    update: "Changes a member's role. Owners only; the last owner cannot be demoted.",
    delete: 'Removes a member and revokes every token they hold for this business. Owners only; the last owner stays.',
  },
  service: {
    list: members.listMembers,
    find: members.getMember, // presented already: a member shows its user's e-mail and name
    present: (member) => member,
    create: (em, business, input, auth) => members.createMember(em, business, input, auth && { userId: auth.userId }),
    update: (em, business, id, input, auth) => members.updateMember(em, business, id, input, auth && { userId: auth.userId }),
    delete: (em, business, id, auth) => members.deleteMember(em, business, id, auth && { userId: auth.userId }),
  },
}) {}
