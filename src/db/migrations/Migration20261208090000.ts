import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 48, items 2 and 5: sending_tally, what each business sent a day per budget (sms, email, invitations) and to
 * each guest, taken a unit at a time by an upsert that refuses past the limit; account_mail's inbox (the address as
 * one inbox: no +tag, no Gmail dots) and when the mail was let through to it (null while an invitation waits), for
 * the limit of account e-mails per inbox an hour.
 */
export class Migration20261208090000 extends Migration {
  override name = 'Migration20261208090000';

  override up(): void | Promise<void> {
    this.addSql(`create table "sending_tally" ("business_id" varchar(40) not null, "day" date not null, "budget" varchar(12) not null, "recipient" varchar(64) not null, "used" int not null, "held" int not null default 0, "told_at" timestamptz(3) null, primary key ("business_id", "day", "budget", "recipient"));`);
    this.addSql(`alter table "sending_tally" add constraint "sending_tally_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);

    this.addSql(`alter table "account_mail" add column "inbox" varchar(320) null, add column "inbox_at" timestamptz(3) null;`);
    // Mails already queued keep their hour: their address lower-cased (as stored) and the time they were queued.
    this.addSql(`update "account_mail" set "inbox" = "email", "inbox_at" = "created_at";`);
    this.addSql(`alter table "account_mail" alter column "inbox" set not null;`);
    this.addSql(`create index "account_mail_inbox_idx" on "account_mail" ("inbox", "inbox_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "account_mail_inbox_idx";`);
    this.addSql(`alter table "account_mail" drop column "inbox", drop column "inbox_at";`);
    this.addSql(`drop table if exists "sending_tally" cascade;`);
  }
}
