import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { Timestamped } from '../../shared/timestamps.js';
import { Business } from '../business/index.js';
import { MEMBERSHIP_ROLES, type MembershipRole } from './membership.entity.js';
import { User } from './user.entity.js';

/** Invitation links live this long (docs/accounts.md). */
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

/**
 * An owner's invitation of an address to the business with a role: pending until accepted (then the row goes and a
 * membership stays) or deleted (revoked). Its link's token is on the account_mail row that carries it.
 */
@Entity({ tableName: 'invitation' })
@Unique({ name: 'invitation_business_email_unique', properties: ['business', 'email'] })
export class Invitation extends Timestamped {
  @PrimaryKey({ type: 'string', length: 40 }) id: string = newId('invitation');

  @Index({ name: 'invitation_business_idx' })
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade' })
  business!: string;

  /** Normalised as app_user.email is. */
  @Property({ type: 'string', length: 320 }) email!: string;
  @Enum({ items: () => MEMBERSHIP_ROLES }) role!: MembershipRole;

  /** The owner who invited (null when the operator did, or that user is gone). */
  @ManyToOne(() => User, { mapToPk: true, deleteRule: 'set null', nullable: true }) invitedBy?: string | null;
  @Property({ type: 'datetime', length: 3 }) expiresAt!: Date;
}
