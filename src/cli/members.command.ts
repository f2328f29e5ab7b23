import type { AdminCommand } from './command.js';
import { required, UsageError } from './command.js';
import { MEMBERSHIP_ROLES, Membership, type MembershipRole } from '../modules/user/membership.entity.js';
import { createMember, deleteMember } from '../modules/user/member.service.js';
import { isId } from '../shared/id.js';
import { AppError } from '../shared/errors.js';
import { normaliseEmail } from '../modules/user/user.service.js';
import { User } from '../modules/user/user.entity.js';

/** The operator acts as no member (actor null): any business, but the same rules (an existing user, one owner kept). */
export const addMemberCommand: AdminCommand = {
  name: 'add-member',
  summary: 'Add an existing user to a business with a role (owner, manager or staff)',
  usage: 'add-member --business BUS_ID --email E --role owner|manager|staff',
  options: { business: { type: 'string' }, email: { type: 'string' }, role: { type: 'string' } },
  async run(values, orm) {
    const role = required(values, 'role');
    if (!(MEMBERSHIP_ROLES as readonly string[]).includes(role)) throw new UsageError(`--role must be one of ${MEMBERSHIP_ROLES.join(', ')}`);
    const business = businessArg(values);
    const member = await createMember(orm.em.fork(), business, { email: required(values, 'email'), role: role as MembershipRole }, null);
    return { data: member, object: 'member' };
  },
};

export const removeMemberCommand: AdminCommand = {
  name: 'remove-member',
  summary: "Remove a member from a business (by member id or e-mail) and revoke their tokens for it",
  usage: 'remove-member --business BUS_ID (--member MEM_ID | --email E)',
  options: { business: { type: 'string' }, member: { type: 'string' }, email: { type: 'string' } },
  async run(values, orm) {
    const business = businessArg(values);
    const em = orm.em.fork();
    let id = values.member as string | undefined;
    if (!id) {
      const email = normaliseEmail(required(values, 'email'));
      const user = await em.findOne(User, { email }, { fields: ['id'] });
      const membership = user ? await em.findOne(Membership, { business, user: user.id }, { fields: ['id'] }) : null;
      if (!membership) throw new AppError('not_found', `${email} is not a member of ${business}`);
      id = membership.id;
    }
    // As Stripe answers a delete: the id, the object, and deleted.
    return { id: await deleteMember(em, business, id, null), object: 'member', deleted: true };
  },
};

function businessArg(values: Record<string, unknown>): string {
  const business = required(values, 'business');
  if (!isId('business', business)) throw new UsageError('--business must be a business id (bus_...)');
  return business;
}
