import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 49: a survey chooses the languages its guest page offers (its questions are written in one of them); null,
 * as every survey until now, offers every language the page has.
 */
export class Migration20261208130000 extends Migration {
  override name = 'Migration20261208130000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "survey" add "languages" jsonb null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "survey" drop column "languages";`);
  }
}
