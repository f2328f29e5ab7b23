import type { Opt } from '@mikro-orm/core';
import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { NamedOwnedEntity } from '../business/index.js';

// Tells the survey pages' caches when it changes, after commit (modules/business/survey-page.signal.ts).
@Entity({ tableName: 'metric' })
@Index({ name: 'metric_business_created_idx', properties: ['business', 'createdAt', 'id'] })
export class Metric extends NamedOwnedEntity {
  id = newId('metric');

  /** Rating scale, inclusive: 1 to 5 unless set. */
  @Property({ type: 'smallint' }) scaleMin: Opt<number> = 1;
  @Property({ type: 'smallint' }) scaleMax: Opt<number> = 5;
}
