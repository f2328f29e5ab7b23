import { OptionalProps } from '@mikro-orm/core';
import { Property } from '@mikro-orm/decorators/legacy';

/**
 * createdAt/updatedAt for every table. Millisecond precision (timestamptz(3)) because the API speaks
 * milliseconds; the database sets nothing itself so one clock (the app's) orders rows and ids alike.
 */
export abstract class Timestamped {
  [OptionalProps]?: 'createdAt' | 'updatedAt';

  @Property({ type: 'datetime', length: 3 })
  createdAt: Date = new Date();

  @Property({ type: 'datetime', length: 3, onUpdate: () => new Date() })
  updatedAt: Date = new Date();
}
