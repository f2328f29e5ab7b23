import { Migration } from '@mikro-orm/migrations';

/** The tables whose statement trigger notified the survey pages' or the webhook door's memos, and its channel. */
const NOTIFYING = [
  ['business', 'survey_pages'],
  ['location', 'survey_pages'],
  ['metric', 'survey_pages'],
  ['survey', 'survey_pages'],
  ['survey_step', 'survey_pages'],
  ['custom_integration', 'webhook_accounts'],
] as const;
const notifyTrigger = (channel: string) => (channel === 'survey_pages' ? 'survey_pages_changed' : 'webhook_accounts_changed');

/**
 * Issue 51, item 4: no cross-table work and no NOTIFY in triggers. The memos' notifications are told by the service
 * after commit (kit/signals/signals.ts announceWritesOf), from the process that wrote, never from a shard.
 */
export class Migration20261208190000 extends Migration {
  override name = 'Migration20261208190000';

  override up(): void | Promise<void> {
    for (const [table, channel] of NOTIFYING) {
      const trigger = notifyTrigger(channel);
      this.addSql(`drop trigger if exists "${trigger}" on "${table}";`);
      this.addSql(`drop function if exists "${table}_${trigger}_fn"();`);
    }
  }

  override down(): void | Promise<void> {
    for (const [table, channel] of NOTIFYING) {
      const trigger = notifyTrigger(channel);
      this.addSql(
        `create function "${table}_${trigger}_fn"() returns trigger language plpgsql as $$ begin perform pg_notify('${channel}', ''); return null; end; $$;`,
      );
      this.addSql(`create trigger "${trigger}" after insert or update or delete on "${table}" for each statement execute function "${table}_${trigger}_fn"();`);
    }
  }
}
