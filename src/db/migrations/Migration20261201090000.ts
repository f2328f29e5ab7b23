import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 39: the order webhook's door keeps each business's secret hash in memory; a write to custom_integration
 * notifies `webhook_accounts` at commit, so that every process forgets it.
 */
export class Migration20261201090000 extends Migration {

  override name = 'Migration20261201090000';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function "custom_integration_webhook_accounts_changed_fn"() returns trigger as $$ begin perform pg_notify('webhook_accounts', ''); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "webhook_accounts_changed" AFTER INSERT OR UPDATE OR DELETE on "custom_integration" for each STATEMENT execute function "custom_integration_webhook_accounts_changed_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "webhook_accounts_changed" on "custom_integration";`);
    this.addSql(`drop function if exists "custom_integration_webhook_accounts_changed_fn"();`);
  }

}
