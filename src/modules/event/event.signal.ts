import type { TriggerDef } from '@mikro-orm/core';

/**
 * Every event notifies this channel at commit with "<business> <event id> <type>" (ids and types hold no spaces), so
 * each process's feed learns of events written by any process: live subscriptions need no polling and no broker.
 */
export const EVENTS_CHANNEL = 'events';

export const eventNotifyTrigger: TriggerDef = {
  name: 'event_notify',
  timing: 'after',
  events: ['insert'],
  forEach: 'row',
  body: `perform pg_notify('${EVENTS_CHANNEL}', new.business_id || ' ' || new.id || ' ' || new.type); return null;`,
};
