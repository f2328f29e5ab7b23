import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 33: guests' session cookies are signed (HMAC-SHA256) with a server key kept here, rotated by `rotate-keys`
 * like the token-signing keys: one active key signs, retired ones verify until the cookies they signed expire.
 */
export class Migration20261127005000 extends Migration {

  override name = 'Migration20261127005000';

  override up(): void | Promise<void> {
    this.addSql(`create table "guest_session_key" ("kid" varchar(32) not null, "secret" varchar(64) not null, "active" boolean not null default true, "created_at" timestamptz(3) not null, "retired_at" timestamptz(3) null, primary key ("kid"));`);
    this.addSql(`create index "guest_session_key_active_idx" on "guest_session_key" ("active");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "guest_session_key" cascade;`);
  }

}
