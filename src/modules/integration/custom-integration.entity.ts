import type { Opt } from '@mikro-orm/core';
import { Entity, OneToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { Timestamped } from '../../shared/timestamps.js';
import { Business } from '../business/index.js';
// Its writes tell the webhook door's memos after commit.
import './webhook-account.signal.js';

/** The connected Custom order integration of a business: at most one, holding the webhook secret's hash. */
@Entity({ tableName: 'custom_integration' })
export class CustomIntegration extends Timestamped {
  @PrimaryKey({ type: 'string', length: 40 }) id: string = newId('customIntegration');
  @OneToOne(() => Business, { mapToPk: true, owner: true, unique: 'custom_integration_business_unique', deleteRule: 'cascade' }) business!: string;

  /** SHA-256 of the bearer secret; compared in constant time. */
  @Property({ type: 'string', length: 64 }) secretHash!: string;
  @Property({ type: 'datetime', length: 3 }) connectedAt: Opt<Date> = new Date();
  @Property({ type: 'datetime', length: 3, nullable: true }) rotatedAt?: Date | null;
}
