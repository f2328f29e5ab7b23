import { Migration } from '@mikro-orm/migrations';

/**
 * Sign-in failures no longer lock an e-mail: they are counted per (e-mail, address), per address and per e-mail in
 * fixed windows (src/http/rate-limit/failure-limit.ts), and a refusal lasts as long as its window, so the lock's column
 * goes. Rows of the old keys (`email:`, `ip:`) read as the new counters of the same names until their window ends.
 */
export class Migration20261127004500 extends Migration {

  override name = 'Migration20261127004500';

  override up(): void | Promise<void> {
    this.addSql(`alter table "sign_in_throttle" drop column "locked_until";`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "sign_in_throttle" add column "locked_until" timestamptz(3) null;`);
  }

}
