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

/** How every timestamp appears in JSON here: milliseconds since the Unix epoch (docs/architecture.md, "Reading and writing data"). */
export const toMillis = (date: Date): number => date.getTime();

/**
 * `JSON.stringify` with every Date as milliseconds. The replacer reads the holder's original value because
 * JSON.stringify has already turned a Date into its ISO string (Date.prototype.toJSON) when the replacer sees it.
 */
export function stringifyWithMillis(value: unknown, space?: number): string {
  return JSON.stringify(
    value,
    function (this: Record<string, unknown>, key, v) {
      const original = this[key];
      return original instanceof Date ? toMillis(original) : v;
    },
    space,
  );
}
