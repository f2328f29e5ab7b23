import { ManyToOne, PrimaryKey } from '@mikro-orm/decorators/legacy';
import { Timestamped } from '../../shared/timestamps.js';
import { Business } from './business.entity.js';

/**
 * The columns of every table a business owns: the id (each entity gives its prefix: `id = newId('survey')`) and the
 * owner, whose deletion takes the row with it. Not an entity itself: MikroORM maps these columns into each subclass.
 */
export abstract class BusinessOwnedEntity extends Timestamped {
  @PrimaryKey({ type: 'string', length: 40 })
  id!: string;

  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade' })
  business!: string;
}
