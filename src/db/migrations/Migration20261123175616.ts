import { Migration } from '@mikro-orm/migrations';

export class Migration20261123175616 extends Migration {

  override name = 'Migration20261123175616';

  override up(): void | Promise<void> {
    this.addSql(`create table "feedback_suppression" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "channel" varchar(10) not null, "hash" varchar(64) not null, "source" varchar(20) not null, primary key ("id"));`);
    this.addSql(`alter table "feedback_suppression" add constraint "feedback_suppression_contact_unique" unique ("business_id", "channel", "hash");`);

    this.addSql(`create table "feedback_flow" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "name" varchar(200) not null, "enabled" boolean not null default true, "priority" int not null default 0, "trigger" varchar(30) not null default 'order.created', "conditions" jsonb null, "survey_id" varchar(40) not null, "channels" jsonb not null, "delay_minutes" int not null default 45, "quiet_hours" jsonb null, "throttle_days" int not null default 14, "reminder_after_hours" int null, "expires_after_hours" int not null default 168, "templates" jsonb not null, primary key ("id"));`);
    this.addSql(`create index "feedback_flow_business_created_idx" on "feedback_flow" ("business_id", "created_at", "id");`);

    this.addSql(`create table "feedback_request" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "flow_id" varchar(40) null, "order_id" varchar(40) not null, "survey_id" varchar(40) not null, "trigger" varchar(30) not null, "status" varchar(20) not null default 'scheduled', "reason" varchar(40) null, "error" text null, "channel" varchar(10) null, "email_hash" varchar(64) null, "phone_hash" varchar(64) null, "token" varchar(40) not null, "send_at" timestamptz(3) not null, "due_at" timestamptz(3) null, "attempts" int not null default 0, "locked_until" timestamptz(3) null, "locked_by" varchar(60) null, "sent_at" timestamptz(3) null, "reminded_at" timestamptz(3) null, "opened_at" timestamptz(3) null, "completed_at" timestamptz(3) null, "expires_at" timestamptz(3) not null, primary key ("id"));`);
    this.addSql(`create index "feedback_request_phone_idx" on "feedback_request" ("phone_hash", "business_id", "created_at") where "phone_hash" is not null;`);
    this.addSql(`create index "feedback_request_email_idx" on "feedback_request" ("business_id", "email_hash", "created_at") where "email_hash" is not null;`);
    this.addSql(`create index "feedback_request_due_idx" on "feedback_request" ("due_at") where "due_at" is not null;`);
    this.addSql(`create index "feedback_request_business_created_idx" on "feedback_request" ("business_id", "created_at", "id");`);
    this.addSql(`alter table "feedback_request" add constraint "feedback_request_token_unique" unique ("token");`);
    this.addSql(`alter table "feedback_request" add constraint "feedback_request_order_flow_unique" unique ("order_id", "flow_id");`);

    this.addSql(`alter table "feedback_suppression" add constraint "feedback_suppression_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);

    this.addSql(`alter table "feedback_flow" add constraint "feedback_flow_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "feedback_flow" add constraint "feedback_flow_survey_id_foreign" foreign key ("survey_id") references "survey" ("id") on delete cascade;`);

    this.addSql(`alter table "feedback_request" add constraint "feedback_request_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "feedback_request" add constraint "feedback_request_flow_id_foreign" foreign key ("flow_id") references "feedback_flow" ("id") on delete set null;`);
    this.addSql(`alter table "feedback_request" add constraint "feedback_request_order_id_foreign" foreign key ("order_id") references "customer_order" ("id") on delete cascade;`);
    this.addSql(`alter table "feedback_request" add constraint "feedback_request_survey_id_foreign" foreign key ("survey_id") references "survey" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "feedback_request" drop constraint "feedback_request_flow_id_foreign";`);

    this.addSql(`drop table if exists "feedback_suppression" cascade;`);
    this.addSql(`drop table if exists "feedback_flow" cascade;`);
    this.addSql(`drop table if exists "feedback_request" cascade;`);
  }

}
