import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 39: a webhook is held by one worker at a time on its own row (webhook.repo.ts, the claim), where the claim
 * used to find the holder by scanning the webhook's leased deliveries: a scan that grew with the partition. The
 * index of leased deliveries served only that scan; without it a delivery's lease changes no indexed column.
 */
export class Migration20261130090000 extends Migration {
  override name = 'Migration20261130090000';

  override up(): void | Promise<void> {
    // The deliveries' table first, then the webhooks', the order in which a delivery's insert locks them (its foreign
    // key): taken the other way round, a migration under load deadlocks with the fan-out.
    this.addSql(`drop index "webhook_delivery_leased_idx";`);
    this.addSql(`alter table "webhook" add column "leased_by" varchar(60) null, add column "leased_until" timestamptz(3) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`create index "webhook_delivery_leased_idx" on "webhook_delivery" ("webhook_id") where "locked_until" is not null;`);
    this.addSql(`alter table "webhook" drop column "leased_by", drop column "leased_until";`);
  }
}
