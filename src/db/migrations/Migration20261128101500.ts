import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 35, a resolved case still waits for its guest: a restaurant resolves a case once it has answered, and the
 * guest's next order within 60 days of its opening (or the redemption of its offer) is the recovery it wants counted.
 * The index of the cases an order may recover (the came-back check on every order) takes the resolved ones in too.
 */
export class Migration20261128101500 extends Migration {

  override name = 'Migration20261128101500';

  override up(): void | Promise<void> {
    this.addSql(`drop index if exists "guest_case_business_waiting_idx";`);
    this.addSql(`create index "guest_case_business_waiting_idx" on "guest_case" ("business_id", "opened_at") where "status" in ('open', 'replied', 'resolved');`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "guest_case_business_waiting_idx";`);
    this.addSql(`create index "guest_case_business_waiting_idx" on "guest_case" ("business_id", "opened_at") where "status" in ('open', 'replied');`);
  }

}
