import type { EntityManager } from '@mikro-orm/postgresql';
import { LockMode } from '@mikro-orm/core';
import { hashSecret } from '../../shared/secrets.js';
import { AccountMail, type AccountMailKind, TOKEN_PREFIX } from '../user/index.js';

/** Why a link cannot be used: the pages say which, since the link's holder is its rightful reader. */
export type LinkProblem = 'unknown' | 'used' | 'expired' | 'revoked';

export type LinkLookup = { mail: AccountMail; problem?: undefined } | { mail?: undefined; problem: LinkProblem };

/** The account_mail row of a link's token (only its hash is stored), with why it cannot be used, if it cannot. */
export async function findLink(em: EntityManager, kind: Exclude<AccountMailKind, 'exists'>, token: unknown, lock = false): Promise<LinkLookup> {
  if (typeof token !== 'string' || !token.startsWith(TOKEN_PREFIX[kind]) || token.length > 100) return { problem: 'unknown' };
  const mail = await em.findOne(AccountMail, { tokenHash: hashSecret(token), kind }, lock ? { lockMode: LockMode.PESSIMISTIC_WRITE } : {});
  if (!mail) return { problem: 'unknown' };
  if (mail.usedAt) return { problem: 'used' };
  if (kind === 'invitation' && !mail.invitation) return { problem: 'revoked' };
  if (!mail.expiresAt || mail.expiresAt.getTime() <= Date.now()) return { problem: 'expired' };
  return { mail };
}
