import { Migration } from '@mikro-orm/migrations';

/**
 * Fan-out only where it can go (issue 11): an event is pending fan-out, and wakes the workers, only when its business
 * has an enabled webhook, decided by a trigger as it is inserted; creating or enabling a webhook takes the business's
 * fan-out lock so no event committed after it is missed (the Event entity explains the race).
 */
export class Migration20261123175838 extends Migration {

  override name = 'Migration20261123175838';

  override up(): void | Promise<void> {
    this.addSql(`drop trigger if exists "event_webhook_work" on "event";`);
    this.addSql(`drop function if exists "event_event_webhook_work_fn"();`);
    this.addSql(`create or replace function "event_event_fanout_flag_fn"() returns trigger as $$ begin new.fanout_pending := exists (select 1 from webhook w where w.business_id = new.business_id and w.enabled); if not new.fanout_pending then perform pg_advisory_xact_lock_shared(1163, hashtext(new.business_id)); new.fanout_pending := current_setting('transaction_isolation') <> 'read committed' or exists (select 1 from webhook w where w.business_id = new.business_id and w.enabled); end if; if new.fanout_pending then perform pg_notify('webhook_work', ''); end if; return new; end; $$ language plpgsql;`);
    this.addSql(`create trigger "event_fanout_flag" BEFORE INSERT on "event" for each ROW execute function "event_event_fanout_flag_fn"();`);

    this.addSql(`create or replace function "webhook_webhook_fanout_lock_fn"() returns trigger as $$ begin if new.enabled and (tg_op = 'INSERT' or not old.enabled) then perform pg_advisory_xact_lock(1163, hashtext(new.business_id)); end if; return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "webhook_fanout_lock" AFTER INSERT OR UPDATE on "webhook" for each ROW execute function "webhook_webhook_fanout_lock_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "event_fanout_flag" on "event";`);
    this.addSql(`drop function if exists "event_event_fanout_flag_fn"();`);
    this.addSql(`create or replace function "event_event_webhook_work_fn"() returns trigger as $$ begin perform pg_notify('webhook_work', ''); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "event_webhook_work" AFTER INSERT on "event" for each STATEMENT execute function "event_event_webhook_work_fn"();`);

    this.addSql(`drop trigger if exists "webhook_fanout_lock" on "webhook";`);
    this.addSql(`drop function if exists "webhook_webhook_fanout_lock_fn"();`);
  }

}
