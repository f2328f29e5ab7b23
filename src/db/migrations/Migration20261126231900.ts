import { Migration } from '@mikro-orm/migrations';

/**
 * Credentials carry the scopes their client_credentials tokens may hold at most (issue 33: consent to
 * credentials:write minted every scope of the creator's role). Existing credentials get what their creator's role
 * allowed when this ran, so every integration keeps working; a creator no longer a member (whose credential could
 * mint nothing already) and the built-in portal get none. The lists are the roles of membership.roles.ts as of this
 * migration, written out: a later change of the roles must not change what this migration did.
 */
const BY_ROLE = {
  owner: ['surveys:read', 'surveys:write', 'submissions:read', 'submissions:write', 'metrics:read', 'metrics:write', 'orders:read', 'orders:write', 'webhooks:read', 'webhooks:write', 'events:read', 'credentials:read', 'credentials:write', 'locations:read', 'locations:write', 'analytics:read', 'members:read', 'members:write', 'flows:read', 'flows:write'],
  manager: ['surveys:read', 'surveys:write', 'submissions:read', 'submissions:write', 'metrics:read', 'metrics:write', 'orders:read', 'orders:write', 'webhooks:read', 'webhooks:write', 'events:read', 'credentials:read', 'credentials:write', 'locations:read', 'locations:write', 'analytics:read', 'members:read', 'flows:read', 'flows:write'],
  staff: ['surveys:read', 'submissions:read', 'metrics:read', 'orders:read', 'locations:read', 'analytics:read', 'flows:read'],
};

export class Migration20261126231900 extends Migration {

  override name = 'Migration20261126231900';

  override up(): void | Promise<void> {
    this.addSql(`alter table "credential" add column "scopes" jsonb null;`);
    for (const [role, scopes] of Object.entries(BY_ROLE)) {
      this.addSql(`update "credential" c set "scopes" = '${JSON.stringify(scopes)}'::jsonb
        from "membership" m where m."user_id" = c."created_by_id" and m."business_id" = c."business_id" and m."role" = '${role}';`);
    }
    this.addSql(`update "credential" set "scopes" = '[]'::jsonb where "scopes" is null;`);
    this.addSql(`alter table "credential" alter column "scopes" set not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "credential" drop column "scopes";`);
  }

}
