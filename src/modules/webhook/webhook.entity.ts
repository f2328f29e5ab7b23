import type { Opt } from '@mikro-orm/core';
import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/business-owned.entity.js';

/** An outbound subscription: events of the listed types are posted to `url`, signed (Standard Webhooks). */
@Entity({ tableName: 'webhook' })
@Index({ name: 'webhook_business_created_idx', properties: ['business', 'createdAt', 'id'] })
export class Webhook extends BusinessOwnedEntity {
  id = newId('webhook');

  @Property({ type: 'string', length: 2048 })
  url!: string;

  /** Event types, or ['*'] for all. */
  @Property({ type: 'json' })
  events: Opt<string[]> = [];

  @Property({ type: 'text', nullable: true })
  description?: string | null;

  /** Kept in clear: signing needs it. Shown once at creation, never again. */
  @Property({ type: 'string', length: 100, lazy: true })
  secret!: string;

  @Property({ type: 'boolean' })
  enabled: Opt<boolean> = true;
}
