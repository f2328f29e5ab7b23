import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { AppError } from '../../shared/errors.js';
import { hashPassword, verifyPassword } from '../../shared/secrets.js';
import { Business } from '../business/index.js';
import { recordEvent } from '../event/index.js';
import { presentMember, presentInvitation } from '../member/index.js';
import { Invitation, Membership, User } from '../user/index.js';
import { weakPassword } from './password.rules.js';
import { findLink, type LinkProblem } from './account-link.service.js';

export interface InvitationView {
  invitation: Invitation;
  businessName: string;
  /**
   * The invited address has a confirmed account: accepting signs in rather than up. One awaiting confirmation counts
   * as none (its password, if any, is its registrant's): the link proves the inbox, so its holder chooses one.
   */
  hasAccount: boolean;
}

/** What an invitation link shows, or why it cannot be used. */
export async function viewInvitation(em: EntityManager, token: unknown): Promise<InvitationView | { problem: LinkProblem }> {
  const found = await findLink(em, 'invitation', token);
  if (!found.mail) return { problem: found.problem };
  const invitation = await em.findOne(Invitation, { id: found.mail.invitation! });
  if (!invitation) return { problem: 'revoked' };
  if (invitation.expiresAt.getTime() <= Date.now()) return { problem: 'expired' };
  const business = await em.findOneOrFail(Business, { id: invitation.business }, { fields: ['name'] });
  return { invitation, businessName: business.name, hasAccount: (await em.count(User, { email: invitation.email, emailVerifiedAt: { $ne: null } })) > 0 };
}

export type AcceptOutcome = { user: string; business: string } | { problem: LinkProblem } | { wrongPassword: true };

/**
 * Accepts an invitation, once: with the password of the invited address's confirmed account when it has one (checked
 * by the caller's throttle), else with a name and password of the link holder's choosing, creating that account or
 * finishing one awaiting confirmation (confirmed: the link proves the address). The membership, the events and the
 * link's use commit together; the invitation row goes.
 */
export async function acceptInvitation(em: EntityManager, token: unknown, p: { password: string; name?: string }): Promise<AcceptOutcome> {
  const view = await viewInvitation(em.fork(), token);
  if ('problem' in view) return view;
  const existing = view.hasAccount ? await em.findOneOrFail(User, { email: view.invitation.email }, { populate: ['passwordHash'] }) : undefined;
  let newHash: string | undefined;
  if (existing) {
    if (!existing.passwordHash || !(await verifyPassword(p.password, existing.passwordHash))) return { wrongPassword: true };
  } else {
    const checks: { field: string; message: string }[] = [];
    if (!p.name?.trim() || p.name.trim().length > 200) checks.push({ field: 'name', message: 'Enter your name (at most 200 characters)' });
    const weak = weakPassword(p.password, { email: view.invitation.email, name: p.name });
    if (weak) checks.push({ field: 'password', message: `The password ${weak}` });
    if (checks.length) throw AppError.validation(checks);
    newHash = await hashPassword(p.password);
  }
  return em.fork().transactional(async (tx): Promise<AcceptOutcome> => {
    const found = await findLink(tx, 'invitation', token, true);
    if (!found.mail) return { problem: found.problem };
    const invitation = await tx.findOne(Invitation, { id: found.mail.invitation! }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!invitation) return { problem: 'revoked' };
    if (invitation.expiresAt.getTime() <= Date.now()) return { problem: 'expired' };
    const now = new Date();
    let user = await tx.findOne(User, { email: invitation.email }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (newHash) {
      // Confirmed meanwhile (another link of the inbox): its password is asked for after all.
      if (user?.emailVerifiedAt) return { wrongPassword: true };
      const chosen = { name: p.name!.trim(), passwordHash: newHash, emailVerifiedAt: now };
      if (user) Object.assign(user, chosen);
      else user = tx.create(User, { email: invitation.email, ...chosen });
    } else if (!user) return { problem: 'unknown' };
    found.mail.usedAt = now;
    if (!(await tx.count(Membership, { business: invitation.business, user: user.id }))) {
      const membership = tx.create(Membership, { business: invitation.business, user: user.id, role: invitation.role });
      recordEvent(tx, invitation.business, 'member.created', presentMember(membership, user));
    }
    recordEvent(tx, invitation.business, 'invitation.accepted', presentInvitation(invitation));
    tx.remove(invitation);
    return { user: user.id, business: invitation.business };
  });
}
