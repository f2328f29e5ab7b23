import { Migration } from '@mikro-orm/migrations';

/**
 * An event notifies only those who listen (src/modules/event/event.signal.ts): the delivery workers when its business
 * has an enabled webhook (as before), and the live subscriptions when a process has registered a subscriber of its
 * business in event_subscriber (before: every event notified them, and every notifying commit waits its turn).
 * One trigger decides both, under one advisory lock class, so the two former triggers go.
 */
export class Migration20261125150333 extends Migration {

  override name = 'Migration20261125150333';

  override up(): void | Promise<void> {
    this.addSql(`create table "event_subscriber" ("business_id" varchar(40) not null, "process" varchar(80) not null, "expires_at" timestamptz(3) not null, primary key ("business_id", "process"));`);
    this.addSql(`drop trigger if exists "event_fanout_flag" on "event";`);
    this.addSql(`drop function if exists "event_event_fanout_flag_fn"();`);
    this.addSql(`drop trigger if exists "event_notify" on "event";`);
    this.addSql(`drop function if exists "event_event_notify_fn"();`);
    this.addSql(`create or replace function "event_event_audience_fn"() returns trigger as $$ begin declare   webhooks boolean;   subscribers boolean; begin   perform pg_advisory_xact_lock_shared(1163, hashtext(new.business_id));   select exists (select 1 from webhook w where w.business_id = new.business_id and w.enabled),          exists (select 1 from event_subscriber s where s.business_id = new.business_id and s.expires_at > now())     into webhooks, subscribers;   if current_setting('transaction_isolation') <> 'read committed' then     webhooks := true;     subscribers := true;   end if;   new.fanout_pending := webhooks;   if webhooks then perform pg_notify('webhook_work', ''); end if;   if subscribers then perform pg_notify('events', new.business_id || ' ' || new.id || ' ' || new.type); end if;   return new; end; end; $$ language plpgsql;`);
    this.addSql(`create trigger "event_audience" BEFORE INSERT on "event" for each ROW execute function "event_event_audience_fn"();`);
    this.addSql(`create or replace function "event_subscriber_event_subscriber_audience_lock_fn"() returns trigger as $$ begin perform pg_advisory_xact_lock(1163, hashtext(new.business_id)); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "event_subscriber_audience_lock" AFTER INSERT OR UPDATE on "event_subscriber" for each ROW execute function "event_subscriber_event_subscriber_audience_lock_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "event_audience" on "event";`);
    this.addSql(`drop function if exists "event_event_audience_fn"();`);
    this.addSql(`drop table if exists "event_subscriber" cascade;`);
    this.addSql(`drop function if exists "event_subscriber_event_subscriber_audience_lock_fn"();`);
    this.addSql(`create or replace function "event_event_fanout_flag_fn"() returns trigger as $$ begin new.fanout_pending := exists (select 1 from webhook w where w.business_id = new.business_id and w.enabled); if not new.fanout_pending then perform pg_advisory_xact_lock_shared(1163, hashtext(new.business_id)); new.fanout_pending := current_setting('transaction_isolation') <> 'read committed' or exists (select 1 from webhook w where w.business_id = new.business_id and w.enabled); end if; if new.fanout_pending then perform pg_notify('webhook_work', ''); end if; return new; end; $$ language plpgsql;`);
    this.addSql(`create trigger "event_fanout_flag" BEFORE INSERT on "event" for each ROW execute function "event_event_fanout_flag_fn"();`);
    this.addSql(`create or replace function "event_event_notify_fn"() returns trigger as $$ begin perform pg_notify('events', new.business_id || ' ' || new.id || ' ' || new.type); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "event_notify" AFTER INSERT on "event" for each ROW execute function "event_event_notify_fn"();`);
  }

}
