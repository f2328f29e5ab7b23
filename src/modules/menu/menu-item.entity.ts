import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';

@Entity({ tableName: 'menu_item' })
// One menu entry per name and business, whatever the case: ingestion upserts on this index (ON CONFLICT).
@Index({
  name: 'menu_item_business_name_unique',
  expression: 'create unique index "menu_item_business_name_unique" on "menu_item" ("business_id", lower("name"))',
})
export class MenuItem extends BusinessOwnedEntity {
  id = newId('menuItem');

  /** Trimmed display name as first received. */
  @Property({ type: 'string', length: 300 }) name!: string;

  /** The sender's product id (`itemId`), the latest one seen for this name. */
  @Property({ type: 'string', length: 200, nullable: true }) externalItemId?: string | null;
}
