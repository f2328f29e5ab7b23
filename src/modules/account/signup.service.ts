import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Checks } from '../../shared/validation.js';
import { hashPassword } from '../../shared/secrets.js';
import { checkTimeZone } from '../../shared/time-zone.js';
import { Business } from '../business/business.entity.js';
import { Membership } from '../user/membership.entity.js';
import { User } from '../user/user.entity.js';
import { EMAIL, normaliseEmail } from '../user/user.service.js';
import { queueAccountMail } from '../user/account-mail.service.js';
import { recordEvent } from '../event/event.service.js';
import { weakPassword } from './password.rules.js';
import { findLink, type LinkProblem } from './account-link.service.js';

export const VERIFY_TTL_MS = 24 * 3600_000;

export interface SignUpInput {
  name: string;
  email: string;
  password: string;
  businessName: string;
  timeZone: string;
}

/** The form's checks, the same for every address (they say nothing about accounts). */
export function checkSignUp(input: SignUpInput): void {
  const checks = new Checks();
  const email = normaliseEmail(input.email);
  if (!input.name.trim() || input.name.trim().length > 200) checks.fail('name', 'Enter your name (at most 200 characters)');
  if (!EMAIL.test(email) || email.length > 320) checks.fail('email', 'Enter an e-mail address, like name@example.com');
  const weak = weakPassword(input.password, { email, name: input.name });
  if (weak) checks.fail('password', `The password ${weak}`);
  if (!input.businessName.trim() || input.businessName.trim().length > 200) checks.fail('businessName', 'Enter the name of your business (at most 200 characters)');
  checkTimeZone(checks, 'timeZone', input.timeZone || 'UTC');
  checks.throwIfAny();
}

/**
 * A sign-up, answered the same whatever the address: a new address gets an unverified account, its business (owned
 * by it) and a verification e-mail; a known one only an e-mail to its owner ("you already have an account"). The
 * password is hashed either way, so the time taken does not tell them apart.
 */
export async function signUp(em: EntityManager, input: SignUpInput, continueTo?: string): Promise<void> {
  checkSignUp(input);
  const email = normaliseEmail(input.email);
  const passwordHash = await hashPassword(input.password);
  const existsMail = async () => {
    await em.fork().transactional(async (tx) => {
      const user = await tx.findOne(User, { email }, { fields: ['id'] });
      await queueAccountMail(tx, { kind: 'exists', email, user: user?.id ?? null });
    });
  };
  if (await em.count(User, { email })) return existsMail();
  try {
    await em.fork().transactional(async (tx) => {
      const user = tx.create(User, { email, name: input.name.trim(), passwordHash, emailVerifiedAt: null });
      const business = tx.create(Business, { name: input.businessName.trim(), country: null, timeZone: input.timeZone || 'UTC' });
      const membership = tx.create(Membership, { user: user.id, business: business.id, role: 'owner' });
      recordEvent(tx, business.id, 'member.created', { id: membership.id, object: 'member', business: business.id, user: user.id, email, name: user.name, role: 'owner', createdAt: membership.createdAt, updatedAt: membership.updatedAt });
      await queueAccountMail(tx, { kind: 'verify', email, user: user.id, continueTo: continueTo ?? null, expiresAt: new Date(Date.now() + VERIFY_TTL_MS) });
    });
  } catch (err) {
    // The same address signing up twice at once: the second is a known address.
    if (err instanceof UniqueConstraintViolationException) return existsMail();
    throw err;
  }
}

/** Another verification e-mail, when `email` has an account not yet verified; nothing otherwise (same answer). */
export async function resendVerification(em: EntityManager, email: string): Promise<void> {
  const address = normaliseEmail(email);
  const user = await em.findOne(User, { email: address }, { fields: ['id', 'emailVerifiedAt'] });
  if (!user || user.emailVerifiedAt) return;
  await em.fork().transactional(async (tx) => {
    await queueAccountMail(tx, { kind: 'verify', email: address, user: user.id, expiresAt: new Date(Date.now() + VERIFY_TTL_MS) });
  });
}

/** Uses a verification link: the account's address is proved. Answers the user and where to go next. */
export async function verifyEmail(em: EntityManager, token: unknown): Promise<{ user: string; continueTo: string | null } | { problem: LinkProblem }> {
  return em.fork().transactional(async (tx) => {
    const found = await findLink(tx, 'verify', token, true);
    if (!found.mail) return { problem: found.problem };
    const user = found.mail.user;
    if (!user) return { problem: 'unknown' as const };
    found.mail.usedAt = new Date();
    await tx.nativeUpdate(User, { id: user, emailVerifiedAt: null }, { emailVerifiedAt: new Date() });
    return { user, continueTo: found.mail.continueTo ?? null };
  });
}

