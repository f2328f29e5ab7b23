import { Migration } from '@mikro-orm/migrations';

/** Member roles are owner, manager and staff (issue 14): the role once called `admin` is `manager` now. */
export class Migration20261123175500 extends Migration {

  override name = 'Migration20261123175500';

  override up(): void | Promise<void> {
    this.addSql(`alter table "membership" drop constraint if exists "membership_role_check";`);
    this.addSql(`update "membership" set "role" = 'manager' where "role" = 'admin';`);
    this.addSql(`alter table "membership" add constraint "membership_role_check" check ("role" in ('owner', 'manager', 'staff'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "membership" drop constraint if exists "membership_role_check";`);
    this.addSql(`update "membership" set "role" = 'admin' where "role" = 'manager';`);
    this.addSql(`alter table "membership" add constraint "membership_role_check" check ("role" in ('owner', 'admin', 'staff'));`);
  }

}
