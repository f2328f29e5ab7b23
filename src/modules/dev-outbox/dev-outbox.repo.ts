import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../shared/id.js';
import { DevOutboxMessage } from './dev-outbox.entity.js';

/** The dev outbox's statements (dev-outbox.entity.ts). */

export type KeptMessage = Pick<DevOutboxMessage, 'channel' | 'sender' | 'recipient' | 'subject' | 'body'>;

/** Keeps one message that would have gone out. */
export async function keepMessage(em: EntityManager, message: KeptMessage): Promise<void> {
  await em.fork().insert(DevOutboxMessage, { ...message, id: newId('devOutboxMessage'), createdAt: new Date() });
}

/** The newest messages first (ids are time-ordered, so ties on the millisecond keep their order). */
export function newestMessages(em: EntityManager, limit: number): Promise<DevOutboxMessage[]> {
  return em.fork().find(DevOutboxMessage, {}, { orderBy: { createdAt: 'desc', id: 'desc' }, limit });
}
