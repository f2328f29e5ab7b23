import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Business } from '../business/index.js';

/**
 * What a business has sent on one day (UTC), per budget (`sms`, `email`, `invitations`): one row for the business
 * (`recipient` ''), and one per guest it messaged (`recipient` their key, recipientKey). Each message takes a unit by
 * one atomic upsert that refuses past the limit (sending.repo.ts), so processes sending at once never overspend.
 * A business's rows of earlier days are deleted by its first message of a new day.
 */
@Entity({ tableName: 'sending_tally' })
export class SendingTally {
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade', primary: true }) business!: string;
  @PrimaryKey({ type: 'date' }) day!: string;
  @PrimaryKey({ type: 'string', length: 12 }) budget!: string;
  @PrimaryKey({ type: 'string', length: 64 }) recipient!: string;

  /** Units taken: messages accepted (an API send) or started (a worker's), less those given back. */
  @Property({ type: 'integer' }) used!: number;
  /** Automated messages held until the next day because this budget was spent. */
  @Property({ type: 'integer', default: 0 }) held!: number;
  /** When the owner was told that this budget held a message (once a day: sendingbudget.reached). */
  @Property({ type: 'datetime', length: 3, nullable: true }) toldAt?: Date | null;
}
