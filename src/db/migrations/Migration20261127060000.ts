import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 35, alerts and replies: case_alert holds each recipient's alert of a new case (and the escalation check and
 * its messages), case_message a case's thread; each outbound row is also its job (due_at, a lease), claimed by the
 * case workers with FOR UPDATE SKIP LOCKED.
 */
export class Migration20261127060000 extends Migration {

  override name = 'Migration20261127060000';

  override up(): void | Promise<void> {
    this.addSql(`create table "case_message" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "case_id" varchar(40) not null, "direction" varchar(3) not null, "channel" varchar(10) not null, "body" text not null, "status" varchar(10) not null default 'queued', "author" varchar(40) null, "address" varchar(320) not null, "message_id" varchar(200) null, "error" text null, "attempts" int not null default 0, "due_at" timestamptz(3) null, "locked_until" timestamptz(3) null, "locked_by" varchar(60) null, "sent_at" timestamptz(3) null, primary key ("id"));`);
    this.addSql(`create index "case_message_sms_address_idx" on "case_message" ("address", "created_at") where "direction" = 'out' and "channel" = 'sms';`);
    this.addSql(`create index "case_message_due_idx" on "case_message" ("due_at") where "due_at" is not null;`);
    this.addSql(`create index "case_message_case_created_idx" on "case_message" ("case_id", "created_at", "id");`);

    this.addSql(`create table "case_alert" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "case_id" varchar(40) not null, "kind" varchar(12) not null, "channel" varchar(10) not null, "address" varchar(320) not null, "reason" varchar(300) not null, "status" varchar(10) not null default 'pending', "error" text null, "attempts" int not null default 0, "due_at" timestamptz(3) null, "locked_until" timestamptz(3) null, "locked_by" varchar(60) null, "sent_at" timestamptz(3) null, primary key ("id"));`);
    this.addSql(`create index "case_alert_due_idx" on "case_alert" ("due_at") where "due_at" is not null;`);
    this.addSql(`alter table "case_alert" add constraint "case_alert_recipient_uq" unique ("case_id", "kind", "channel", "address");`);

    this.addSql(`alter table "case_message" add constraint "case_message_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "case_message" add constraint "case_message_case_id_foreign" foreign key ("case_id") references "guest_case" ("id") on delete cascade;`);

    this.addSql(`alter table "case_alert" add constraint "case_alert_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "case_alert" add constraint "case_alert_case_id_foreign" foreign key ("case_id") references "guest_case" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "case_message" cascade;`);
    this.addSql(`drop table if exists "case_alert" cascade;`);
  }

}
