import { Migration } from '@mikro-orm/migrations';

/**
 * Live events (issue 17): every event notifies `events` at commit with "<business> <event id> <type>", so the
 * GraphQL subscriptions of every process hear what any process wrote (src/modules/event/event.signal.ts).
 */
export class Migration20261123231000 extends Migration {

  override name = 'Migration20261123231000';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function "event_event_notify_fn"() returns trigger as $$ begin perform pg_notify('events', new.business_id || ' ' || new.id || ' ' || new.type); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "event_notify" AFTER INSERT on "event" for each ROW execute function "event_event_notify_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "event_notify" on "event";`);
    this.addSql(`drop function if exists "event_event_notify_fn"();`);
  }

}
