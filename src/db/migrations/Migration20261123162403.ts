import { Migration } from '@mikro-orm/migrations';

export class Migration20261123162403 extends Migration {

  override name = 'Migration20261123162403';

  override up(): void | Promise<void> {
    this.addSql(`alter table "survey" add "closing_text" text null, add "review_url" varchar(2000) null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "survey" drop column "closing_text", drop column "review_url";`);
  }

}
