import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 52, item 3: every text answer analysed by the workers. answer_analysis holds what was read in each text answer
 * (labels, a score, the words that carry each theme: never the text again); text_analysis_job is their queue, a row per
 * submission; theme_settings is a business's own theme words and the themes it switched off.
 */
export class Migration20261208160000 extends Migration {
  override name = 'Migration20261208160000';

  override up(): void | Promise<void> {
    this.addSql(`create table "theme_settings" ("business_id" varchar(40) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "words" jsonb not null, "off" jsonb not null, primary key ("business_id"));`);

    this.addSql(`create table "answer_analysis" ("business_id" varchar(40) not null, "submission_id" varchar(40) not null, "step" varchar(40) not null, "language" varchar(8) not null, "score" double precision not null, "label" varchar(8) not null, "themes" jsonb not null, "dishes" jsonb not null, "analysed_at" timestamptz(3) not null, primary key ("business_id", "submission_id", "step"));`);
    this.addSql(`create index "answer_analysis_submission_idx" on "answer_analysis" ("submission_id");`);

    this.addSql(`create table "text_analysis_job" ("business_id" varchar(40) not null, "submission_id" varchar(40) not null, "attempts" int not null default 0, "due_at" timestamptz(3) null, "locked_until" timestamptz(3) null, "locked_by" varchar(60) null, "error" text null, "created_at" timestamptz(3) not null, primary key ("business_id", "submission_id"));`);
    this.addSql(`create index "text_analysis_job_due_idx" on "text_analysis_job" ("due_at") where "due_at" is not null;`);

    this.addSql(`alter table "theme_settings" add constraint "theme_settings_business_id_foreign" foreign key ("business_id") references "business" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "answer_analysis" add constraint "answer_analysis_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "answer_analysis" add constraint "answer_analysis_submission_id_foreign" foreign key ("submission_id") references "submission" ("id") on delete cascade;`);

    this.addSql(`alter table "text_analysis_job" add constraint "text_analysis_job_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "text_analysis_job" cascade;`);
    this.addSql(`drop table if exists "answer_analysis" cascade;`);
    this.addSql(`drop table if exists "theme_settings" cascade;`);
  }
}
