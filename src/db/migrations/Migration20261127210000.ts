import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 38 item 3, no NOTIFY in a writer's transaction: the event's insert trigger still decides, under the business's
 * audience lock, who hears of the event, but writes its decision on the row instead of notifying: `fanout_pending`
 * true (an enabled webhook), null (no webhook, a live subscriber) or false (nobody). The writer reads it back with
 * its insert and notifies after commit, on a statement of its own (src/kit/signals/signals.ts). PostgreSQL serialises the
 * commits of every notifying transaction on one lock, which the order's and the submission's commits no longer take.
 *
 * The `survey_pages` triggers keep their NOTIFY: they fire on writes of surveys, steps, metrics, locations and
 * businesses, which are edits in the portal or the API, rare next to orders and submissions, and none of those hot
 * writes touches these tables.
 */
export class Migration20261127210000 extends Migration {

  override name = 'Migration20261127210000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "event" alter column "fanout_pending" drop not null;`);
    this.addSql(`create or replace function "event_event_audience_fn"() returns trigger as $$ begin declare   webhooks boolean;   subscribers boolean; begin   perform pg_advisory_xact_lock_shared(1163, hashtext(new.business_id));   select exists (select 1 from webhook w where w.business_id = new.business_id and w.enabled),          exists (select 1 from event_subscriber s where s.business_id = new.business_id and s.expires_at > now())     into webhooks, subscribers;   if current_setting('transaction_isolation') <> 'read committed' then     webhooks := true;     subscribers := true;   end if;   new.fanout_pending := case when webhooks then true when subscribers then null else false end;   return new; end; end; $$ language plpgsql;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`create or replace function "event_event_audience_fn"() returns trigger as $$ begin declare   webhooks boolean;   subscribers boolean; begin   perform pg_advisory_xact_lock_shared(1163, hashtext(new.business_id));   select exists (select 1 from webhook w where w.business_id = new.business_id and w.enabled),          exists (select 1 from event_subscriber s where s.business_id = new.business_id and s.expires_at > now())     into webhooks, subscribers;   if current_setting('transaction_isolation') <> 'read committed' then     webhooks := true;     subscribers := true;   end if;   new.fanout_pending := webhooks;   if webhooks then perform pg_notify('webhook_work', ''); end if;   if subscribers then perform pg_notify('events', new.business_id || ' ' || new.id || ' ' || new.type); end if;   return new; end; end; $$ language plpgsql;`);
    this.addSql(`update "event" set "fanout_pending" = false where "fanout_pending" is null;`);
    this.addSql(`alter table "event" alter column "fanout_pending" set not null;`);
  }

}
