import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { OutboxJob } from '../../kit/db/outbox-job.entity.js';
import { Invitation } from './invitation.entity.js';
import { User } from './user.entity.js';

/**
 * verify: the link that proves a new account's address; reset: a password reset link; exists: "you already have an
 * account" (to a sign-up with a known address: no link); invitation: an invitation's accept link.
 */
const ACCOUNT_MAIL_KINDS = ['verify', 'reset', 'exists', 'invitation'] as const;
export type AccountMailKind = (typeof ACCOUNT_MAIL_KINDS)[number];
export type AccountMailStatus = 'pending' | 'sent' | 'failed';

/**
 * An account e-mail and the single-use link it carries, in one row: written in the transaction that asks for it, sent
 * by a worker (due while `dueAt` is set, leased with FOR UPDATE SKIP LOCKED, as case alerts are). The link's token
 * is made by the worker when it sends, and only its SHA-256 is kept here: the database never holds a usable link.
 */
@Entity({ tableName: 'account_mail' })
@Index({ name: 'account_mail_due_idx', expression: 'create index "account_mail_due_idx" on "account_mail" ("due_at") where "due_at" is not null' })
@Index({ name: 'account_mail_inbox_idx', properties: ['inbox', 'inboxAt'] })
export class AccountMail extends OutboxJob {
  @PrimaryKey({ type: 'string', length: 40 }) id: string = newId('accountMail');
  @Property({ type: 'string', length: 12 }) kind!: AccountMailKind;

  /** The recipient (normalised). */
  @Property({ type: 'string', length: 320 }) email!: string;

  /** The inbox it reaches (inboxAddress: no +tag, no Gmail dots): the key of the hourly limit per inbox. */
  @Property({ type: 'string', length: 320 }) inbox!: string;
  /** When it was let through to the inbox (queued to go at once); null while an invitation waits for a place. */
  @Property({ type: 'datetime', length: 3, nullable: true }) inboxAt?: Date | null;

  @Index({ name: 'account_mail_user_idx' })
  @ManyToOne(() => User, { mapToPk: true, deleteRule: 'cascade', nullable: true })
  user?: string | null;

  /** Set null when the invitation is revoked or accepted, so its link can say so. */
  @Index({ name: 'account_mail_invitation_idx' })
  @ManyToOne(() => Invitation, { mapToPk: true, deleteRule: 'set null', nullable: true })
  invitation?: string | null;

  @Unique({ name: 'account_mail_token_hash_unique' })
  @Property({ type: 'string', length: 64, nullable: true })
  tokenHash?: string | null;

  /** Where to go once the link is used: an /oauth/authorize address of a partner's client (never another site). */
  @Property({ type: 'text', nullable: true }) continueTo?: string | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) expiresAt?: Date | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) usedAt?: Date | null;
  @Property({ type: 'string', length: 10 }) status: Opt<AccountMailStatus> = 'pending';
}
