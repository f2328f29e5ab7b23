import { Migration } from '@mikro-orm/migrations';

/** Issue 49: the dev outbox (MAIL_OUTBOX=dev), where outgoing e-mail and texts are kept instead of sent. */
export class Migration20261208140000 extends Migration {
  override name = 'Migration20261208140000';

  override up(): void | Promise<void> {
    this.addSql(`create table "dev_outbox_message" ("id" varchar(40) not null, "channel" varchar(8) not null, "sender" text not null, "recipient" text not null, "subject" text null, "body" text not null, "created_at" timestamptz(3) not null, primary key ("id"));`);
    this.addSql(`create index "dev_outbox_message_created_at_index" on "dev_outbox_message" ("created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "dev_outbox_message";`);
  }
}
