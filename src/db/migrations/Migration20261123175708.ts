import { Migration } from '@mikro-orm/migrations';

export class Migration20261123175708 extends Migration {

  override name = 'Migration20261123175708';

  override up(): void | Promise<void> {
    this.addSql(`alter table "credential" alter column "business_id" drop not null;`);
    this.addSql(`alter table "credential" alter column "secret_hash" drop not null;`);
    this.addSql(`alter table "credential" alter column "created_by_id" drop not null;`);
    // The business portal: a built-in public client (no business, no secret); its redirect address follows PUBLIC_URL.
    this.addSql(`insert into "credential" ("id", "created_at", "updated_at", "business_id", "name", "client_id", "secret_hash", "valid_redirect_uris", "created_by_id")
      values ('cred_00000000000000000000P0RTA1', now(), now(), null, 'Business portal', 'portal', null, '[]', null) on conflict do nothing;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`delete from "credential" where "business_id" is null;`);
    this.addSql(`alter table "credential" alter column "business_id" set not null;`);
    this.addSql(`alter table "credential" alter column "secret_hash" set not null;`);
    this.addSql(`alter table "credential" alter column "created_by_id" set not null;`);
  }

}
