import type { Opt } from '@mikro-orm/core';
import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';

// Tells the survey pages' caches when it changes, after commit (modules/business/survey-page.signal.ts).
@Entity({ tableName: 'location' })
@Index({ name: 'location_business_created_idx', properties: ['business', 'createdAt', 'id'] })
// `location:metadata` links resolve a location by one metadata pair: a containment (@>) lookup.
@Index({ name: 'location_metadata_gin', expression: 'create index "location_metadata_gin" on "location" using gin ("metadata" jsonb_path_ops)' })
export class Location extends BusinessOwnedEntity {
  id = newId('location');

  @Property({ type: 'string', length: 200 }) name!: string;

  /** String to string, e.g. {"branchCode": "LHR-01"}. */
  @Property({ type: 'json' }) metadata: Opt<Record<string, string>> = {};

  /** IANA name (Europe/London): decides which day a rating belongs to. Unset: the business's, else UTC. */
  @Property({ type: 'string', length: 64, nullable: true }) timeZone?: string | null;
}
