import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 48: confirming an address proves the inbox, not the password. A sign-up sets no password; the owner of the
 * address chooses it on the confirmation page. Accounts still waiting for confirmation lose the password their
 * registrant typed (it could be a stranger's), so no one signs in with it once the address is confirmed.
 */
export class Migration20261208100000 extends Migration {
  override name = 'Migration20261208100000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "app_user" alter column "password_hash" drop not null;`);
    this.addSql(`update "app_user" set "password_hash" = null where "email_verified_at" is null;`);
  }

  override down(): void | Promise<void> {
    // No password matches '!' (not a scrypt hash): such accounts set one through a reset link.
    this.addSql(`update "app_user" set "password_hash" = '!' where "password_hash" is null;`);
    this.addSql(`alter table "app_user" alter column "password_hash" set not null;`);
  }
}
