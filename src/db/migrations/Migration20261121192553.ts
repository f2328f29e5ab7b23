import { Migration } from '@mikro-orm/migrations';

export class Migration20261121192553 extends Migration {

  override name = 'Migration20261121192553';

  override up(): void | Promise<void> {
    this.addSql(`create table "sign_in_throttle" ("key" varchar(400) not null, "failures" int not null, "window_started_at" timestamptz(3) not null, "locked_until" timestamptz(3) null, primary key ("key"));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "sign_in_throttle" cascade;`);
  }

}
