import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 48, item 4: a guest's SMS that cannot be tied to one case thread is held for the operator in a table of its
 * own, owned by no business, instead of being copied into every thread that texted the number.
 */
export class Migration20261207164800 extends Migration {
  override name = 'Migration20261207164800';

  override up(): void | Promise<void> {
    this.addSql(`create table "held_sms" ("id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "sender" varchar(40) not null, "body" text not null, "reason" varchar(20) not null, "candidates" jsonb not null, primary key ("id"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "held_sms";`);
  }
}
