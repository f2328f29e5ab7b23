import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 35: winback offers of a case, each code unique in its business and redeemed once by a later order; the
 * business's saved replies.
 */
export class Migration20261127045603 extends Migration {

  override name = 'Migration20261127045603';

  override up(): void | Promise<void> {
    this.addSql(`create table "offer" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "case_id" varchar(40) not null, "description" varchar(500) not null, "code" varchar(32) not null, "expires_at" timestamptz(3) not null, "redeemed_at" timestamptz(3) null, "redeemed_order_id" varchar(40) null, primary key ("id"));`);
    this.addSql(`create index "offer_case_idx" on "offer" ("case_id", "created_at", "id");`);
    this.addSql(`alter table "offer" add constraint "offer_business_code_uq" unique ("business_id", "code");`);
    this.addSql(`alter table "offer" add constraint "offer_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "offer" add constraint "offer_case_id_foreign" foreign key ("case_id") references "guest_case" ("id") on delete cascade;`);
    this.addSql(`alter table "offer" add constraint "offer_redeemed_order_id_foreign" foreign key ("redeemed_order_id") references "customer_order" ("id") on delete set null;`);
    this.addSql(`create table "reply_template" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "business_id" varchar(40) not null, "name" varchar(100) not null, "body" text not null, primary key ("id"));`);
    this.addSql(`create index "reply_template_business_created_idx" on "reply_template" ("business_id", "created_at", "id");`);
    this.addSql(`alter table "reply_template" add constraint "reply_template_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "reply_template" cascade;`);
    this.addSql(`drop table if exists "offer" cascade;`);
  }

}
