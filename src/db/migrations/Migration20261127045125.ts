import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 35: alert rules, and the cases of unhappy guests they open (one per submission: a unique constraint). The
 * partial index serves the came-back check on every order: a business's cases still waiting for the guest.
 */
export class Migration20261127045125 extends Migration {

  override name = 'Migration20261127045125';

  override up(): void | Promise<void> {
    this.addSql(`create table "alert_rule" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "name" varchar(200) not null, "enabled" boolean not null default true, "severity" text not null default 'normal', "when" jsonb not null, "notify" jsonb not null, "escalate_after_minutes" int null, primary key ("id"));`);
    this.addSql(`create index "alert_rule_business_created_idx" on "alert_rule" ("business_id", "created_at", "id");`);

    this.addSql(`create table "guest_case" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "submission_id" varchar(40) not null, "order_id" varchar(40) null, "location_id" varchar(40) null, "survey_id" varchar(40) null, "rule_id" varchar(40) null, "severity" text not null, "status" text not null default 'open', "assignee_id" varchar(40) null, "reason" varchar(300) not null, "guest_name" varchar(300) null, "guest_email" varchar(320) null, "guest_phone" varchar(20) null, "opened_at" timestamptz(3) not null, "first_reply_at" timestamptz(3) null, "resolved_at" timestamptz(3) null, "recovered_at" timestamptz(3) null, "recovered_order_id" varchar(40) null, "recovered_offer" varchar(40) null, primary key ("id"));`);
    this.addSql(`create index "guest_case_business_waiting_idx" on "guest_case" ("business_id", "opened_at") where "status" in ('open', 'replied');`);
    this.addSql(`create index "guest_case_business_created_idx" on "guest_case" ("business_id", "created_at", "id");`);
    this.addSql(`alter table "guest_case" add constraint "guest_case_submission_uq" unique ("submission_id");`);

    this.addSql(`alter table "alert_rule" add constraint "alert_rule_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "alert_rule" add constraint "alert_rule_severity_check" check ("severity" in ('normal', 'urgent'));`);

    this.addSql(`alter table "guest_case" add constraint "guest_case_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "guest_case" add constraint "guest_case_submission_id_foreign" foreign key ("submission_id") references "submission" ("id") on delete cascade;`);
    this.addSql(`alter table "guest_case" add constraint "guest_case_order_id_foreign" foreign key ("order_id") references "customer_order" ("id") on delete set null;`);
    this.addSql(`alter table "guest_case" add constraint "guest_case_location_id_foreign" foreign key ("location_id") references "location" ("id") on delete set null;`);
    this.addSql(`alter table "guest_case" add constraint "guest_case_survey_id_foreign" foreign key ("survey_id") references "survey" ("id") on delete set null;`);
    this.addSql(`alter table "guest_case" add constraint "guest_case_rule_id_foreign" foreign key ("rule_id") references "alert_rule" ("id") on delete set null;`);
    this.addSql(`alter table "guest_case" add constraint "guest_case_assignee_id_foreign" foreign key ("assignee_id") references "membership" ("id") on delete set null;`);
    this.addSql(`alter table "guest_case" add constraint "guest_case_recovered_order_id_foreign" foreign key ("recovered_order_id") references "customer_order" ("id") on delete set null;`);
    this.addSql(`alter table "guest_case" add constraint "guest_case_severity_check" check ("severity" in ('normal', 'urgent'));`);
    this.addSql(`alter table "guest_case" add constraint "guest_case_status_check" check ("status" in ('open', 'replied', 'resolved', 'recovered'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "guest_case" cascade;`);
    this.addSql(`drop table if exists "alert_rule" cascade;`);
  }

}
