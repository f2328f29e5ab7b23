import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 47: a credential can hold itself to OAuth 2.1 (PKCE and the redirect URI at the token endpoint) by its
 * owner's choice; by default it follows the interface document's flow, which sends neither.
 */
export class Migration20261207150000 extends Migration {
  override name = 'Migration20261207150000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "credential" add column "require_pkce" boolean not null default false;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "credential" drop column "require_pkce";`);
  }
}
