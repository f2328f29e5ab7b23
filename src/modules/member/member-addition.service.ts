import type { EntityManager } from '@mikro-orm/postgresql';
import { User } from '../user/user.entity.js';
import { normaliseEmail } from '../user/user.service.js';
import type { MembershipRole } from '../user/membership.entity.js';
import { createMember, type MemberActor } from './member.service.js';
import { createInvitation } from './invitation.service.js';
import type { MemberType } from './member.type.js';
import type { InvitationType } from './invitation.type.js';

/**
 * Adds someone by e-mail, as `POST /v2/businesses/{b}/members` promises: a user with an account joins at once (a
 * member); an address without one is invited (an invitation, its link e-mailed). Each writer checks its own rules.
 */
export async function addMember(em: EntityManager, business: string, input: { email: string; role: MembershipRole }, actor?: MemberActor): Promise<MemberType | InvitationType> {
  const email = normaliseEmail(typeof input.email === 'string' ? input.email : '');
  const user = email ? await em.findOne(User, { email }, { fields: ['id'] }) : null;
  return user ? createMember(em, business, input, actor) : createInvitation(em, business, input, actor);
}
