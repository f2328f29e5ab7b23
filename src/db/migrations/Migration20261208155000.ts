import { Migration } from '@mikro-orm/migrations';

/** Held texts are counted per number and expired by age (inbound-sms.rules.ts, MAX_HELD_PER_SENDER): both by index. */
export class Migration20261208155000 extends Migration {
  override name = 'Migration20261208155000';

  override up(): void | Promise<void> {
    this.addSql(`create index "held_sms_sender_idx" on "held_sms" ("sender");`);
    this.addSql(`create index "held_sms_created_at_idx" on "held_sms" ("created_at");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "held_sms_sender_idx";`);
    this.addSql(`drop index "held_sms_created_at_idx";`);
  }
}
