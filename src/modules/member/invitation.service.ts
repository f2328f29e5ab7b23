import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { recordEvent } from '../event/index.js';
import { findPage } from '../../kit/list/list.query.js';
import { findOwned } from '../../kit/resource/resource.js';
import type { ListArgsValue, OrderByValue, Page } from '../../kit/list/list.args.js';
import { AppError } from '../../shared/errors.js';
import { Checks } from '../../shared/validation.js';
import {
  Membership,
  type MembershipRole,
  User,
  EMAIL,
  normaliseEmail,
  INVITATION_TTL_MS,
  Invitation,
  dropUnsentInvitationMail,
  queueAccountMail,
} from '../user/index.js';
import type { WriteContext } from '../../kit/graphql/context.js';
import { checkRole, lockForChange, type MemberWriter } from './member.service.js';
import type { InvitationType } from './invitation.type.js';
import { ownedPresenter } from '../../kit/resource/owned.presenter.js';

export const presentInvitation: (record: Invitation) => InvitationType = ownedPresenter('invitation', ['email', 'role', 'invitedBy', 'expiresAt']);

const findInvitation = (em: EntityManager, business: string, id: string, lock = false) =>
  findOwned(em, Invitation, { kind: 'invitation', label: 'Invitation', business, id, lock });

function listInvitations(em: EntityManager, business: string, args: ListArgsValue<object, OrderByValue>): Promise<Page<InvitationType>> {
  return findPage<Invitation, InvitationType>(em, Invitation, { scope: { business }, args, present: presentInvitation });
}

/**
 * Invites an address (owners only, as every change of members): the invitation and the e-mail carrying its link are
 * written in one transaction, and a worker sends the e-mail. An address already a member is a conflict; so is one
 * with a pending invitation (delete it to send a new one). Each invitation counts against the business's daily
 * invitations and e-mails (a 429 naming the one spent); its e-mail waits when the inbox had its hour's number.
 */
export async function createInvitation(
  em: EntityManager,
  business: string,
  input: { email: string; role: MembershipRole },
  ctx: WriteContext,
): Promise<InvitationType> {
  const actor = ctx.auth;
  const checks = new Checks();
  const email = normaliseEmail(typeof input.email === 'string' ? input.email : '');
  if (!EMAIL.test(email) || email.length > 320) checks.fail('email', 'must be an e-mail address');
  checkRole(checks, input.role, true);
  checks.throwIfAny();
  try {
    return await em.transactional(async (tx) => {
      await lockForChange(tx, business, actor);
      const user = await tx.findOne(User, { email }, { fields: ['id'] });
      if (user && (await tx.count(Membership, { business, user: user.id }))) {
        throw new AppError('conflict', `${email} is already a member of the business`, [{ field: 'email', message: 'already a member' }]);
      }
      const pending = await tx.findOne(Invitation, { business, email }, { fields: ['id'] });
      if (pending) {
        throw new AppError('conflict', `${email} already has a pending invitation (${pending.id}): delete it to send a new one`, [
          { field: 'email', message: 'already invited' },
        ]);
      }
      // The business's invitations and e-mails of the day (a 429 naming the spent one), then the inbox's hour.
      await ctx.services.sending.charge(tx, { business, channel: 'email', kind: 'invitation' });
      const invitation = tx.create(Invitation, {
        business,
        email,
        role: input.role,
        invitedBy: actor?.userId ?? null,
        expiresAt: new Date(Date.now() + INVITATION_TTL_MS),
      });
      await queueAccountMail(tx, { kind: 'invitation', email, invitation: invitation.id, expiresAt: invitation.expiresAt }, ctx.services.sending.settings);
      const presented = presentInvitation(invitation);
      recordEvent(tx, business, 'invitation.created', presented);
      return presented;
    });
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException)
      throw new AppError('conflict', `${email} already has a pending invitation`, [{ field: 'email', message: 'already invited' }]);
    throw err;
  }
}

/** Revokes an invitation: its link then answers that it was withdrawn. */
function deleteInvitation(em: EntityManager, business: string, id: string, by: MemberWriter = {}): Promise<string> {
  return em.transactional(async (tx) => {
    await lockForChange(tx, business, by.auth);
    const invitation = await findInvitation(tx, business, id, true);
    recordEvent(tx, business, 'invitation.deleted', presentInvitation(invitation));
    // Its e-mail not sent yet never goes (and, let through already, gives its place in the inbox's hour back).
    await dropUnsentInvitationMail(tx, invitation.id);
    await tx.nativeDelete(Invitation, { id: invitation.id });
    return invitation.id;
  });
}

export const crud = {
  list: listInvitations,
  find: findInvitation,
  present: presentInvitation,
  create: createInvitation,
  delete: deleteInvitation,
};
