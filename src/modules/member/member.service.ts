import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { recordEvent, deleteRecorded, updateRecorded, type RecordedResource } from '../event/index.js';
import { findPage } from '../../kit/list/list.query.js';
import { findOwned } from '../../kit/resource/resource.js';
import type { ListArgsValue, OrderByValue, Page } from '../../kit/list/list.args.js';
import { AppError } from '../../shared/errors.js';
import { Checks } from '../../shared/validation.js';
import { forgetMemberTokens, revokeTokens } from '../oauth/index.js';
import { Business, checkNewBusiness, type NewBusiness } from '../business/index.js';
import { isId } from '../../shared/id.js';
import { MEMBERSHIP_ROLES, Membership, type MembershipRole, User, normaliseEmail } from '../user/index.js';
import type { MemberType } from './member.type.js';

/**
 * Who asks for a change of members: a user acting through a token (they must be an owner of the business, checked
 * in the change's transaction), or the operator at the admin CLI (`null`), who may change any business.
 */
export type MemberActor = { userId: string } | null | undefined;
/** Who asks, as the writers are given it (the resolver's context; the operator's CLI gives no `auth`). */
export type MemberWriter = { auth?: MemberActor };

type UserFields = Pick<User, 'email' | 'name'>;

export function presentMember(membership: Membership, user: UserFields): MemberType {
  return {
    id: membership.id,
    object: 'member',
    business: membership.business,
    user: membership.user,
    email: user.email,
    name: user.name ?? null,
    role: membership.role,
    createdAt: membership.createdAt,
    updatedAt: membership.updatedAt,
  };
}

/** A membership with its user, as the API shows it. */
async function withUser(em: EntityManager, membership: Membership): Promise<MemberType> {
  const user = await em.findOneOrFail(User, { id: membership.user }, { fields: ['email', 'name'] });
  return presentMember(membership, user);
}

const findMember = (em: EntityManager, business: string, id: string, lock = false) =>
  findOwned(em, Membership, { kind: 'membership', label: 'Member', business, id, lock });

/** A page of members: the memberships in one statement, their users in a second, whatever the page size. */
async function listMembers(em: EntityManager, business: string, args: ListArgsValue<object, OrderByValue>): Promise<Page<MemberType>> {
  const page = await findPage<Membership, Membership>(em, Membership, { scope: { business }, args, present: (m) => m });
  const ids = [...new Set(page.data.map((m) => m.user))];
  const users = ids.length ? await em.find(User, { id: { $in: ids } }, { fields: ['email', 'name'] }) : [];
  const byId = new Map(users.map((u) => [u.id, u]));
  return { ...page, data: page.data.map((m) => presentMember(m, byId.get(m.user)!)) };
}

async function getMember(em: EntityManager, business: string, id: string): Promise<MemberType> {
  return withUser(em, await findMember(em, business, id));
}

export function checkRole(checks: Checks, role: unknown, required: boolean) {
  if (role === undefined || role === null) {
    if (required) checks.fail('role', `is required: one of ${MEMBERSHIP_ROLES.join(', ')}`);
  } else if (!(MEMBERSHIP_ROLES as readonly unknown[]).includes(role)) {
    checks.fail('role', `must be one of ${MEMBERSHIP_ROLES.join(', ')}`);
  }
}

/**
 * Every change of a business's members starts here, in its transaction: the business row is locked, so changes of
 * one business's members run one at a time and "the last owner" cannot be removed by two owners removing each other
 * at once; then the actor must be an owner (read under that lock, so a just-demoted owner cannot act).
 */
export async function lockForChange(tx: EntityManager, business: string, actor: MemberActor): Promise<void> {
  const locked = await tx.findOne(Business, { id: business }, { lockMode: LockMode.PESSIMISTIC_WRITE, fields: ['id'] });
  if (!locked) throw AppError.notFound('Business', business);
  if (!actor) return;
  const own = await tx.findOne(Membership, { business, user: actor.userId }, { fields: ['role'] });
  if (own?.role !== 'owner') {
    throw new AppError('forbidden', `Only an owner of the business can change its members; your role is ${own?.role ?? 'none'}`);
  }
}

/** Refuses to leave the business without an owner. */
async function keepAnOwner(tx: EntityManager, member: Membership, what: string): Promise<void> {
  if (member.role !== 'owner') return;
  const owners = await tx.count(Membership, { business: member.business, role: 'owner' });
  if (owners <= 1) {
    throw new AppError('conflict', `${member.id} is the last owner of the business and cannot be ${what}: make another member an owner first`);
  }
}

/** A business and its owner's membership, in one transaction: a business starts with its owner as its first member. */
export async function createBusiness(em: EntityManager, input: NewBusiness & { owner: string }): Promise<{ business: Business; membership: Membership }> {
  const { name, country, timeZone } = checkNewBusiness(input);
  const owner = isId('user', input.owner) ? await em.findOne(User, { id: input.owner }) : null;
  if (!owner) throw AppError.notFound('User', input.owner);
  return em.transactional(async (tx) => {
    const business = tx.create(Business, { name, country: country ?? null, timeZone: timeZone ?? null });
    const membership = tx.create(Membership, { user: owner.id, business: business.id, role: 'owner' });
    return { business, membership };
  });
}

/**
 * The operator's way in (the admin CLI's add-member): adds a user with a confirmed account at once, by e-mail. A
 * token never adds anyone so: it invites (createInvitation), and the person joins by accepting.
 */
export async function createMember(em: EntityManager, business: string, input: { email: string; role: MembershipRole }): Promise<MemberType> {
  const checks = new Checks();
  const email = normaliseEmail(typeof input.email === 'string' ? input.email : '');
  if (!email) checks.fail('email', 'is required');
  checkRole(checks, input.role, true);
  checks.throwIfAny();
  try {
    return await em.transactional(async (tx) => {
      await lockForChange(tx, business, null);
      const user = await tx.findOne(User, { email }, { fields: ['email', 'name', 'emailVerifiedAt'] });
      if (!user?.emailVerifiedAt) {
        const why = user ? 'its account has not confirmed the address' : 'no user has this e-mail address';
        throw new AppError('validation_failed', `${email}: ${why}; invite it instead (an invitation's link proves the address)`, [
          { field: 'email', message: why },
        ]);
      }
      if (await tx.count(Membership, { business, user: user.id })) {
        throw new AppError('conflict', `${email} is already a member of the business`, [{ field: 'email', message: 'already a member' }]);
      }
      const membership = tx.create(Membership, { business, user: user.id, role: input.role });
      const presented = presentMember(membership, user);
      recordEvent(tx, business, 'member.created', presented);
      return presented;
    });
  } catch (err) {
    // Two adds of the same user at once: the unique index decides, the loser hears what the first check says.
    if (err instanceof UniqueConstraintViolationException)
      throw new AppError('conflict', `${email} is already a member of the business`, [{ field: 'email', message: 'already a member' }]);
    throw err;
  }
}

function recordedFor(actor: MemberActor): RecordedResource<Membership, MemberType> {
  const users = new Map<string, UserFields>();
  return {
    resource: 'member',
    find: async (tx, business, id, lock) => {
      if (lock) await lockForChange(tx, business, actor);
      const membership = await findMember(tx, business, id, lock);
      users.set(membership.user, await tx.findOneOrFail(User, { id: membership.user }, { fields: ['email', 'name'] }));
      return membership;
    },
    present: (row) => presentMember(row, users.get(row.user)!),
  };
}

/** Changes a member's role; the last owner cannot be demoted. */
async function updateMember(
  em: EntityManager,
  business: string,
  id: string,
  input: { role?: MembershipRole | null },
  by: MemberWriter = {},
): Promise<MemberType> {
  const checks = new Checks();
  checkRole(checks, input.role, false);
  checks.throwIfAny();
  const updated = await updateRecorded(em, recordedFor(by.auth), business, id, async (member, tx) => {
    if (!input.role || input.role === member.role) return;
    if (input.role !== 'owner') await keepAnOwner(tx, member, `demoted to ${input.role}`);
    member.role = input.role;
  });
  // After the commit, so no request in between caches the old role again.
  await forgetMemberTokens(em, { user: updated.user, business });
  return updated;
}

/**
 * Removes a member: the last owner stays. Every token the user holds for this business is revoked in the same
 * transaction (refresh tokens included; client-credentials tokens of the credentials they created too, since those
 * act for them), and this process forgets them at once; other processes refuse them within REVOCATION_CACHE_MS.
 */
export function deleteMember(em: EntityManager, business: string, id: string, by: MemberWriter = {}): Promise<string> {
  return deleteRecorded(em, recordedFor(by.auth), business, id, async (member, tx) => {
    await keepAnOwner(tx, member, 'removed');
    await revokeTokens(tx, { user: member.user, business });
    await tx.nativeDelete(Membership, { id: member.id });
  });
}

/**
 * The writers' rules depend on who asks (owners only, the last owner stays): they are given the token's principal.
 * No create: a token invites (addMember, createInvitation in member.resolver.ts).
 */
export const crud = {
  list: listMembers,
  find: getMember, // presented already: a member shows its user's e-mail and name
  present: (member: MemberType) => member,
  update: updateMember,
  delete: deleteMember,
};
