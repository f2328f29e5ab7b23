import type { SendingSettings } from '../../config.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import { Checks } from '../../shared/validation.js';
import { hashPassword } from '../../shared/secrets.js';
import { checkTimeZone } from '../../shared/time-zone.js';
import { Business } from '../business/index.js';
import { Membership, User, EMAIL, normaliseEmail, AccountMail, queueAccountMail } from '../user/index.js';
import { recordEvent } from '../event/index.js';
import { weakPassword } from './password.rules.js';
import { findLink, type LinkProblem } from './account-link.service.js';

const VERIFY_TTL_MS = 24 * 3600_000;

export interface SignUpInput {
  name: string;
  email: string;
  businessName: string;
  timeZone: string;
}

const checkName = (checks: Checks, name: string) => {
  if (!name.trim() || name.trim().length > 200) checks.fail('name', 'Enter your name (at most 200 characters)');
};

/** The form's checks, the same for every address (they say nothing about accounts). */
function checkSignUp(input: SignUpInput): void {
  const checks = new Checks();
  const email = normaliseEmail(input.email);
  checkName(checks, input.name);
  if (!EMAIL.test(email) || email.length > 320) checks.fail('email', 'Enter an e-mail address, like name@example.com');
  if (!input.businessName.trim() || input.businessName.trim().length > 200)
    checks.fail('businessName', 'Enter the name of your business (at most 200 characters)');
  checkTimeZone(checks, 'timeZone', input.timeZone || 'UTC');
  checks.throwIfAny();
}

const confirmationMail = (email: string, user: string | null, continueTo?: string | null) =>
  ({ kind: 'verify', email, user, continueTo: continueTo ?? null, expiresAt: new Date(Date.now() + VERIFY_TTL_MS) }) as const;

/**
 * A sign-up, answered the same whatever the address, and without a password: whoever types an address may not be
 * who reads its inbox, so the password is chosen on the page of the link mailed there (confirmEmail). A new address
 * gets an unverified account, its business (owned by it) and that link; an address awaiting confirmation a new link;
 * one with an account only a mail to its owner ("someone tried to sign up with your address"). Every such mail
 * counts against its inbox's hour (queueAccountMail).
 */
export async function signUp(em: EntityManager, input: SignUpInput, limits: Pick<SendingSettings, 'accountMailsPerHour'>, continueTo?: string): Promise<void> {
  checkSignUp(input);
  const email = normaliseEmail(input.email);
  const known = await em.findOne(User, { email }, { fields: ['id', 'emailVerifiedAt'] });
  if (known) return mailOwner(em, email, known, limits, continueTo);
  try {
    await em.fork().transactional(async (tx) => {
      const user = tx.create(User, { email, name: input.name.trim(), passwordHash: null, emailVerifiedAt: null });
      const business = tx.create(Business, { name: input.businessName.trim(), country: null, timeZone: input.timeZone || 'UTC' });
      const membership = tx.create(Membership, { user: user.id, business: business.id, role: 'owner' });
      recordEvent(tx, business.id, 'member.created', {
        id: membership.id,
        object: 'member',
        business: business.id,
        user: user.id,
        email,
        name: user.name,
        role: 'owner',
        createdAt: membership.createdAt,
        updatedAt: membership.updatedAt,
      });
      await queueAccountMail(tx, confirmationMail(email, user.id, continueTo), limits);
    });
  } catch (err) {
    // The same address signing up twice at once: the second is a known address.
    if (err instanceof UniqueConstraintViolationException)
      return mailOwner(em, email, await em.fork().findOneOrFail(User, { email }, { fields: ['id', 'emailVerifiedAt'] }), limits, continueTo);
    throw err;
  }
}

/** A sign-up with a known address: its owner hears of it (a new link while it awaits confirmation), nobody else. */
async function mailOwner(
  em: EntityManager,
  email: string,
  user: Pick<User, 'id' | 'emailVerifiedAt'>,
  limits: Pick<SendingSettings, 'accountMailsPerHour'>,
  continueTo?: string,
): Promise<void> {
  await em.fork().transactional(async (tx) => {
    await queueAccountMail(tx, user.emailVerifiedAt ? { kind: 'exists', email, user: user.id } : confirmationMail(email, user.id, continueTo), limits);
  });
}

/** Another confirmation e-mail, when `email` has an account not yet confirmed; nothing otherwise (same answer, same work). */
export async function resendVerification(em: EntityManager, email: string, limits: Pick<SendingSettings, 'accountMailsPerHour'>): Promise<void> {
  const address = normaliseEmail(email);
  const user = await em.findOne(User, { email: address }, { fields: ['id', 'emailVerifiedAt'] });
  // Asked either way (the same statements, as a reset is), so the answer's time tells nothing of the account.
  await em.fork().transactional(async (tx) => {
    await queueAccountMail(tx, confirmationMail(address, user?.id ?? null), limits, { send: !!user && !user.emailVerifiedAt });
  });
}

/** A confirmation link's account, or why the link cannot be used (one whose account is confirmed already is spent). */
export async function viewConfirmation(em: EntityManager, token: unknown, lock = false): Promise<{ mail: AccountMail; user: User } | { problem: LinkProblem }> {
  const found = await findLink(em, 'verify', token, lock);
  if (!found.mail) return { problem: found.problem };
  const user = found.mail.user ? await em.findOne(User, { id: found.mail.user }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {}) : null;
  if (!user) return { problem: 'unknown' };
  if (user.emailVerifiedAt) return { problem: 'used' };
  return { mail: found.mail, user };
}

/**
 * Uses a confirmation link: the address is proved, and its owner chooses the password (and may correct the name)
 * here, so nothing the registrant typed opens the account. Every confirmation link of the account is spent.
 */
export async function confirmEmail(
  em: EntityManager,
  token: unknown,
  p: { name: string; password: string },
): Promise<{ user: string; continueTo: string | null } | { problem: LinkProblem }> {
  const peek = await viewConfirmation(em.fork(), token);
  if ('problem' in peek) return peek;
  const checks = new Checks();
  checkName(checks, p.name);
  const weak = weakPassword(p.password, { email: peek.user.email, name: p.name });
  if (weak) checks.fail('password', `The password ${weak}`);
  checks.throwIfAny();
  const passwordHash = await hashPassword(p.password);
  return em.fork().transactional(async (tx) => {
    const found = await viewConfirmation(tx, token, true);
    if ('problem' in found) return found;
    const now = new Date();
    await tx.nativeUpdate(AccountMail, { user: found.user.id, kind: 'verify', usedAt: null }, { usedAt: now });
    Object.assign(found.user, { name: p.name.trim(), passwordHash, emailVerifiedAt: now });
    return { user: found.user.id, continueTo: found.mail.continueTo ?? null };
  });
}
