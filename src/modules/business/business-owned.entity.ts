import { ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Timestamped } from '../../shared/timestamps.js';
import { OutboxJob } from '../../kit/db/outbox-job.entity.js';
import { Business } from './business.entity.js';

/**
 * The columns of every table a business owns: the id (each entity gives its prefix: `id = newId('survey')`) and the
 * owner, whose deletion takes the row with it. Not an entity itself: MikroORM maps these columns into each subclass.
 */
export abstract class BusinessOwnedEntity extends Timestamped {
  @PrimaryKey({ type: 'string', length: 40 }) id!: string;
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade' }) business!: string;
}

/** A business's row it names and may describe (a survey, a metric): the same columns for both. */
export abstract class NamedOwnedEntity extends BusinessOwnedEntity {
  @Property({ type: 'string', length: 200 }) name!: string;
  @Property({ type: 'text', nullable: true }) description?: string | null;
}

/** A business's row that is its own outbox job (kit/db/outbox-job.entity.ts): the same id and owner columns. */
export abstract class BusinessOwnedJob extends OutboxJob {
  @PrimaryKey({ type: 'string', length: 40 }) id!: string;
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade' }) business!: string;
}
