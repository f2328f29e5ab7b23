import type { TriggerDef } from '@mikro-orm/core';

/**
 * A table's trigger that notifies `channel` at the commit of any statement writing to it: what a NotifiedMemo
 * (notified.memo.ts) listens to.
 */
export const notifyingTrigger = (name: string, channel: string): TriggerDef => ({
  name,
  timing: 'after',
  events: ['insert', 'update', 'delete'],
  forEach: 'statement',
  body: `perform pg_notify('${channel}', ''); return null;`,
});
