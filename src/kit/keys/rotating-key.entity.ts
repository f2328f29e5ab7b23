import { OptionalProps } from '@mikro-orm/core';
import { Property } from '@mikro-orm/decorators/legacy';

/**
 * A key that is rotated: one is active at a time and signs; a retired one still verifies what it signed until that
 * has expired. The token-signing keys and the guest-session keys are both rotated by `npm run admin -- rotate-keys`.
 */
export abstract class RotatingKey {
  [OptionalProps]?: 'createdAt' | 'retiredAt' | 'active';

  @Property({ type: 'boolean' }) active: boolean = true;
  @Property({ type: 'datetime', length: 3 }) createdAt: Date = new Date();
  @Property({ type: 'datetime', length: 3, nullable: true }) retiredAt?: Date | null;
}
