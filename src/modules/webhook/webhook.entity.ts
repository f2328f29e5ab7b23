import type { Opt } from '@mikro-orm/core';
import { Entity, Index, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';
import { audienceLock } from '../event/index.js';

/** An outbound subscription: events of the listed types are posted to `url`, signed (Standard Webhooks). */
@Entity({
  tableName: 'webhook',
  // Created or enabled: the business's audience lock, exclusively, until commit (event.signal.ts says why).
  triggers: [
    {
      name: 'webhook_fanout_lock',
      timing: 'after',
      events: ['insert', 'update'],
      forEach: 'row',
      body: audienceLock("new.enabled and (tg_op = 'INSERT' or not old.enabled)"),
    },
  ],
})
@Index({ name: 'webhook_business_created_idx', properties: ['business', 'createdAt', 'id'] })
export class Webhook extends BusinessOwnedEntity {
  id = newId('webhook');

  @Property({ type: 'string', length: 2048 }) url!: string;

  /** Event types, or ['*'] for all. */
  @Property({ type: 'json' }) events: Opt<string[]> = [];
  @Property({ type: 'text', nullable: true }) description?: string | null;

  /** Kept in clear: signing needs it. Shown once at creation, never again. */
  @Property({ type: 'string', length: 100, lazy: true }) secret!: string;
  @Property({ type: 'boolean' }) enabled: Opt<boolean> = true;

  /** After a rotation, the old secret keeps signing (beside the new one) until `secretPreviousUntil`. */
  @Property({ type: 'string', length: 100, nullable: true, lazy: true }) secretPrevious?: string | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) secretPreviousUntil?: Date | null;

  /** Since when every attempt has failed; cleared by a success. Drives the automatic disabling. */
  @Property({ type: 'datetime', length: 3, nullable: true }) failingSince?: Date | null;

  /** The worker leasing this webhook's deliveries, until when: one worker at a time (webhook.repo.ts, the claim). */
  @Property({ type: 'string', length: 60, nullable: true }) leasedBy?: string | null;
  @Property({ type: 'datetime', length: 3, nullable: true }) leasedUntil?: Date | null;
}
