import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/business-owned.entity.js';
import { Survey } from '../survey/survey.entity.js';
import { Order } from '../order/order.entity.js';
import { Location } from '../location/location.entity.js';

export interface Answer {
  step: string;
  value?: string | number | string[];
  ratings?: Record<string, number>;
}

@Entity({ tableName: 'submission' })
@Index({ name: 'submission_survey_created_idx', properties: ['survey', 'createdAt', 'id'] })
@Index({ name: 'submission_business_created_idx', properties: ['business', 'createdAt', 'id'] })
@Index({ name: 'submission_order_idx', properties: ['order'] })
@Index({ name: 'submission_location_idx', properties: ['location'] })
export class Submission extends BusinessOwnedEntity {
  id = newId('submission');

  /** Feedback outlives the form: deleting a survey leaves its submissions (and their answers) in place. */
  @ManyToOne(() => Survey, { mapToPk: true, nullable: true, deleteRule: 'set null' })
  survey?: string | null;

  @Property({ type: 'json' })
  answers: Opt<Answer[]> = [];

  @Property({ type: 'string', length: 200, nullable: true })
  guestId?: string | null;

  @Property({ type: 'string', length: 200, nullable: true })
  sessionId?: string | null;

  @Property({ type: 'json' })
  metadata: Opt<Record<string, unknown>> = {};

  @ManyToOne(() => Order, { mapToPk: true, nullable: true, deleteRule: 'set null' })
  order?: string | null;

  @ManyToOne(() => Location, { mapToPk: true, nullable: true, deleteRule: 'set null' })
  location?: string | null;
}
