import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 52: the feedback list filtered by theme. answer_theme holds, per submission, each theme and sentiment its
 * stored analyses speak of (answer_analysis' `themes` JSON, as a key), filled here from the analyses already stored.
 */
export class Migration20261208170000 extends Migration {
  override name = 'Migration20261208170000';

  override up(): void | Promise<void> {
    this.addSql(`create table "answer_theme" ("business_id" varchar(40) not null, "theme" varchar(30) not null, "sentiment" varchar(8) not null, "submission_id" varchar(40) not null, primary key ("business_id", "theme", "sentiment", "submission_id"));`);
    this.addSql(`create index "answer_theme_submission_idx" on "answer_theme" ("submission_id");`);
    this.addSql(`alter table "answer_theme" add constraint "answer_theme_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "answer_theme" add constraint "answer_theme_submission_id_foreign" foreign key ("submission_id") references "submission" ("id") on delete cascade;`);
    this.addSql(`insert into "answer_theme" ("business_id", "theme", "sentiment", "submission_id")
      select distinct a.business_id, t.theme, t.sentiment, a.submission_id
        from answer_analysis a cross join lateral jsonb_to_recordset(a.themes) as t(theme text, sentiment text)
       where t.theme is not null and t.sentiment is not null;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "answer_theme" cascade;`);
  }
}
