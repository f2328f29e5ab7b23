import { Migration } from '@mikro-orm/migrations';

/**
 * Outbound webhook delivery (issue 11).
 * - `event.fanout_pending`: the outbox. Every event row is inserted with it true, by the ORM or by raw SQL (the
 *   custom order webhook's single statement), so a committed event is always a job for the delivery workers; the
 *   rows that existed before delivery was built are marked done (their receivers never expected them).
 * - `webhook_delivery`: one row per (event, webhook), which is also the delivery's job: `next_attempt_at` says when
 *   it is due, `locked_until`/`locked_by` lease it to one worker at a time.
 * - Webhook secrets become Standard Webhooks secrets: `whsec_` + padded standard base64 of the same key bytes
 *   (they were base64url), so the key stays what it was.
 */
export class Migration20261123160000 extends Migration {
  override name = 'Migration20261123160000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "event" add column "fanout_pending" boolean not null default false;`);
    this.addSql(`alter table "event" alter column "fanout_pending" set default true;`);
    this.addSql(`create index "event_fanout_pending_idx" on "event" ("created_at", "id") where "fanout_pending";`);
    // Wakes the delivery workers (LISTEN webhook_work) when events commit, instead of waiting for their next poll.
    // Named and worded as the Event entity declares it (MikroORM's `<table>_<trigger>_fn`), so entities and schema agree.
    this.addSql(`create or replace function "event_event_webhook_work_fn"() returns trigger as $$ begin perform pg_notify('webhook_work', ''); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "event_webhook_work" AFTER INSERT on "event" for each STATEMENT execute function "event_event_webhook_work_fn"();`);

    this.addSql(`alter table "webhook" add column "secret_previous" varchar(100) null, add column "secret_previous_until" timestamptz(3) null, add column "failing_since" timestamptz(3) null;`);
    this.addSql(`update "webhook" set "secret" = 'whsec_' || encode(decode(rpad(translate(substr("secret", 7), '-_', '+/'), ((length("secret") - 6 + 3) / 4) * 4, '='), 'base64'), 'base64') where "secret" ~ '^whsec_[A-Za-z0-9_-]+$';`);

    this.addSql(`create table "webhook_delivery" (
      "id" varchar(40) not null,
      "business_id" varchar(40) not null,
      "webhook_id" varchar(40) not null,
      "event_id" varchar(40) not null,
      "event_type" varchar(100) not null,
      "status" varchar(20) not null default 'pending',
      "attempt_count" int not null default 0,
      "attempts" jsonb not null default '[]',
      "next_attempt_at" timestamptz(3) null,
      "locked_until" timestamptz(3) null,
      "locked_by" varchar(60) null,
      "created_at" timestamptz(3) not null,
      "updated_at" timestamptz(3) not null,
      primary key ("id"));`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_webhook_id_foreign" foreign key ("webhook_id") references "webhook" ("id") on delete cascade;`);
    this.addSql(`alter table "webhook_delivery" add constraint "webhook_delivery_event_id_foreign" foreign key ("event_id") references "event" ("id") on delete cascade;`);
    this.addSql(`create unique index "webhook_delivery_event_webhook_unique" on "webhook_delivery" ("event_id", "webhook_id");`);
    this.addSql(`create index "webhook_delivery_webhook_created_idx" on "webhook_delivery" ("webhook_id", "created_at", "id");`);
    this.addSql(`create index "webhook_delivery_due_idx" on "webhook_delivery" ("webhook_id", "next_attempt_at", "id") where "next_attempt_at" is not null;`);
    this.addSql(`create index "webhook_delivery_leased_idx" on "webhook_delivery" ("webhook_id") where "locked_until" is not null;`);
    this.addSql(`create index "webhook_delivery_created_idx" on "webhook_delivery" ("created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "webhook_delivery" cascade;`);
    this.addSql(`alter table "webhook" drop column "secret_previous", drop column "secret_previous_until", drop column "failing_since";`);
    this.addSql(`drop trigger if exists "event_webhook_work" on "event";`);
    this.addSql(`drop function if exists "event_event_webhook_work_fn"();`);
    this.addSql(`alter table "event" drop column "fanout_pending";`);
  }
}
