import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { Timestamped } from '../../shared/timestamps.js';

@Entity({ tableName: 'app_user' })
export class User extends Timestamped {
  @PrimaryKey({ type: 'string', length: 40 }) id: string = newId('user');

  /** Always stored lower-cased and trimmed, so the unique index is case-insensitive in effect. */
  @Unique({ name: 'app_user_email_unique' })
  @Property({ type: 'string', length: 320 })
  email!: string;
  @Property({ type: 'string', length: 200, nullable: true }) name?: string | null;

  /**
   * scrypt, self-describing (see hashPassword in shared/secrets.ts); never leaves the server. Null until the owner of
   * the address chooses one through a link we mailed: a sign-up's own form sets none (docs/accounts.md).
   */
  @Property({ type: 'string', length: 255, lazy: true, nullable: true }) passwordHash?: string | null;

  /** When the owner of the address proved it (a link we mailed); null: signed up, not yet verified, cannot sign in. */
  @Property({ type: 'datetime', length: 3, nullable: true }) emailVerifiedAt?: Date | null;

  /**
   * Each sign-in session carries the version it was issued at, and stands only while it is still this one: a password
   * reset adds 1, voiding every session issued before it and none issued after, with no clock to compare.
   */
  @Property({ type: 'integer', default: 0 }) sessionVersion: Opt<number> = 0;
}
