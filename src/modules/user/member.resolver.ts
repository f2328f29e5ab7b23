import { Resolver } from 'type-graphql';
import { OwnedCrudResolver, type CrudService } from '../business/business-owned.resolver.js';
import { MemberType } from './member.type.js';
import * as inputs from './member.inputs.js';
import * as members from './member.service.js';

/** The writers' rules depend on who asks (owners only, the last owner stays): they are given the token's user. */
const crud = {
  list: members.listMembers,
  find: members.getMember, // presented already: a member shows its user's e-mail and name
  present: (member: MemberType) => member,
  create: members.createMember,
  update: members.updateMember,
  delete: members.deleteMember,
} satisfies CrudService<false, MemberType, MemberType, inputs.CreateMemberInput, inputs.UpdateMemberInput>;

@Resolver(() => MemberType)
export class MemberResolver extends OwnedCrudResolver(MemberType, inputs, crud, {
  names: ['member', 'members'],
  descriptions: {
    create: 'Adds a user who already has an account, by e-mail, with a role. Owners only.',
    update: "Changes a member's role. Owners only; the last owner cannot be demoted.",
    delete: 'Removes a member and revokes every token they hold for this business. Owners only; the last owner stays.',
  },
}) {}
