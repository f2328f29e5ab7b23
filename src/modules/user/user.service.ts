import type { EntityManager } from '@mikro-orm/postgresql';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { AppError } from '../../shared/errors.js';
import { Checks } from '../../shared/validation.js';
import { hashPassword } from '../../shared/secrets.js';
import { User } from './user.entity.js';

const MIN_PASSWORD_LENGTH = 8;
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The operator's users (the admin CLI): trusted, so confirmed at once. A sign-up's are made by signup.service.ts. */
export async function createUser(em: EntityManager, input: { email: string; password: string; name?: string }): Promise<User> {
  const email = normaliseEmail(input.email ?? '');
  const checks = new Checks();
  if (!EMAIL.test(email) || email.length > 320) checks.fail('email', `'${input.email}' is not an e-mail address`);
  if ((input.password ?? '').length < MIN_PASSWORD_LENGTH) checks.fail('password', `must be at least ${MIN_PASSWORD_LENGTH} characters`);
  checks.throwIfAny();
  const user = em.create(User, { email, name: input.name?.trim() || null, passwordHash: await hashPassword(input.password), emailVerifiedAt: new Date() });
  try {
    await em.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) {
      throw new AppError('conflict', `A user with the e-mail ${email} already exists`, [{ field: 'email', message: 'already registered' }]);
    }
    throw err;
  }
  return user;
}

/** The user as JSON answers show it (/oauth/me, the admin CLI): timestamps in milliseconds, as everywhere. */
export function presentUser(user: User) {
  return {
    id: user.id,
    object: 'user',
    email: user.email,
    name: user.name ?? null,
    createdAt: user.createdAt.getTime(),
    updatedAt: user.updatedAt.getTime(),
  };
}
