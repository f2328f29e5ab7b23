import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 48: a sign-in session carries its user's session version, and a password reset moves the version on, in
 * place of a time before which sessions were void: a whole-second `iat` could not tell a session issued in the
 * reset's own second from one issued before it, and two processes' clocks need not agree. Users whose sessions a
 * reset voided start at 1, so a session issued before this (which carries no version: 0) stays void for them.
 */
export class Migration20261208120000 extends Migration {
  override name = 'Migration20261208120000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "app_user" add "session_version" int not null default 0;`);
    this.addSql(`update "app_user" set "session_version" = 1 where "sessions_valid_after" is not null;`);
    this.addSql(`alter table "app_user" drop column "sessions_valid_after";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "app_user" add "sessions_valid_after" timestamptz(3) null;`);
    this.addSql(`update "app_user" set "sessions_valid_after" = now() where "session_version" > 0;`);
    this.addSql(`alter table "app_user" drop column "session_version";`);
  }
}
