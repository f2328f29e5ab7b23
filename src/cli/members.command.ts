import { adminCommand, required, UsageError } from './command.js';
import { MEMBERSHIP_ROLES, Membership, type MembershipRole, normaliseEmail, User } from '../modules/user/index.js';
import { createMember, deleteMember } from '../modules/member/index.js';
import { isId } from '../shared/id.js';
import { AppError } from '../shared/errors.js';

/** The operator acts as no member: any business, at once (a token invites instead), but the same rules (a confirmed account, one owner kept). */
export const addMemberCommand = adminCommand({
  usage: 'add-member --business BUS_ID --email E --role owner|manager|staff',
  summary: 'Add a user with a confirmed account to a business with a role (owner, manager or staff), at once',
  async run(values, em) {
    const role = required(values, 'role');
    if (!(MEMBERSHIP_ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${MEMBERSHIP_ROLES.join(', ')}`);
    const business = businessArg(values);
    const member = await createMember(em, business, { email: required(values, 'email'), role: role as MembershipRole });
    return { data: member, object: 'member' };
  },
});

export const removeMemberCommand = adminCommand({
  usage: 'remove-member --business BUS_ID (--member MEM_ID | --email E)',
  summary: 'Remove a member from a business (by member id or e-mail) and revoke their tokens for it',
  async run(values, em) {
    const business = businessArg(values);
    let id = values.member as string | undefined;
    if (!id) {
      const email = normaliseEmail(required(values, 'email'));
      const user = await em.findOne(User, { email }, { fields: ['id'] });
      const membership = user ? await em.findOne(Membership, { business, user: user.id }, { fields: ['id'] }) : null;
      if (!membership) throw new AppError('not_found', `${email} is not a member of ${business}`);
      id = membership.id;
    }
    // As Stripe answers a delete: the id, the object, and deleted.
    return { id: await deleteMember(em, business, id, {}), object: 'member', deleted: true };
  },
});

function businessArg(values: Record<string, unknown>): string {
  const business = required(values, 'business');
  if (!isId('business', business)) throw new UsageError('--business must be a business id (bus_...)');
  return business;
}
