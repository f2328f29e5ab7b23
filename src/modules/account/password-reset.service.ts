import { LockMode } from '@mikro-orm/core';
import type { SendingSettings } from '../../config.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { hashPassword } from '../../shared/secrets.js';
import { User, normaliseEmail, AccountMail, queueAccountMail } from '../user/index.js';
import { revokeTokens } from '../oauth/index.js';
import { weakPassword } from './password.rules.js';
import { findLink, type LinkProblem } from './account-link.service.js';

const RESET_TTL_MS = 30 * 60_000;

/** A reset link to the address when it has an account; nothing otherwise. The page answers the same either way. */
export async function requestPasswordReset(em: EntityManager, email: string, limits: Pick<SendingSettings, 'accountMailsPerHour'>): Promise<void> {
  const address = normaliseEmail(email);
  const user = await em.findOne(User, { email: address }, { fields: ['id', 'emailVerifiedAt'] });
  await em.fork().transactional(async (tx) => {
    // Asked either way (the same statements), so the two answers take about as long; past the inbox's hourly
    // number nothing is queued but a verified account's reset (queueAccountMail), and the page answers the same.
    const draft = { kind: 'reset' as const, email: address, user: user?.id ?? null, expiresAt: new Date(Date.now() + RESET_TTL_MS) };
    await queueAccountMail(tx, draft, limits, { send: !!user, ownerProved: !!user?.emailVerifiedAt });
  });
}

/**
 * Sets a new password through a reset link, once: every sign-in session issued before is void (the user's session
 * version moves on) and every token a sign-in gave the user (access and refresh) is revoked; the link also proves the
 * address (an unverified account is verified). The client_credentials tokens of credentials the user created stand:
 * a credential's secret mints them again at once, so only rotating it ends them, which the reset mail asks of the
 * user, naming each credential (credentialsActingFor).
 */
export async function resetPassword(em: EntityManager, token: unknown, password: string): Promise<{ user: string } | { problem: LinkProblem }> {
  const peek = await findLink(em.fork(), 'reset', token);
  if (!peek.mail) return { problem: peek.problem };
  const owner = await em.findOne(User, { id: peek.mail.user! }, { fields: ['email', 'name'] });
  const weak = weakPassword(password, { email: owner?.email, name: owner?.name ?? undefined });
  if (weak) throw AppError.validation([{ field: 'password', message: `The password ${weak}` }]);
  const passwordHash = await hashPassword(password);
  return em.fork().transactional(async (tx) => {
    const found = await findLink(tx, 'reset', token, true);
    if (!found.mail?.user) return { problem: found.problem ?? 'unknown' };
    const user = found.mail.user;
    const now = new Date();
    await tx.nativeUpdate(AccountMail, { user, kind: 'reset', usedAt: null }, { usedAt: now });
    // Locked: two resets at once each move the version on, never both to the same number.
    const row = await tx.findOneOrFail(User, { id: user }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    row.passwordHash = passwordHash;
    row.sessionVersion += 1;
    row.emailVerifiedAt ??= now;
    await revokeTokens(tx, { user, origin: 'signIn' });
    return { user };
  });
}
