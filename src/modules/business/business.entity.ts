import { Entity, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { Timestamped } from '../../shared/timestamps.js';

@Entity({ tableName: 'business' })
export class Business extends Timestamped {
  @PrimaryKey({ type: 'string', length: 40 })
  id: string = newId('business');

  @Property({ type: 'string', length: 200 })
  name!: string;

  /** ISO 3166-1 alpha-2; the default region for phone numbers written without a country code. */
  @Property({ type: 'string', length: 2, nullable: true })
  country?: string | null;

  /** IANA name: the default time zone of its locations (analytics days); unset means UTC. */
  @Property({ type: 'string', length: 64, nullable: true })
  timeZone?: string | null;
}
