import type { Opt } from '@mikro-orm/core';
import { Property } from '@mikro-orm/decorators/legacy';
import { Timestamped } from '../../shared/timestamps.js';

/**
 * The columns of every row that is its own job in an outbox table (feedback requests, case alerts and replies,
 * account e-mails; src/worker/outbox.loop.ts runs them): due while `dueAt` is set and past, leased to one worker while
 * `lockedUntil` is ahead (FOR UPDATE SKIP LOCKED), tried `attempts` times, `sentAt` once it went out, `error` when it
 * failed. Not an entity itself: MikroORM maps these columns into each subclass.
 */
export abstract class OutboxJob extends Timestamped {
  /** The sender's error, for a failed job. */
  @Property({ type: 'text', nullable: true }) error?: string | null;
  @Property({ type: 'integer' }) attempts: Opt<number> = 0;
  @Property({ type: 'datetime', length: 3, nullable: true }) dueAt?: Date | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) lockedUntil?: Date | null;
  @Property({ type: 'string', length: 60, nullable: true }) lockedBy?: string | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) sentAt?: Date | null;
}
