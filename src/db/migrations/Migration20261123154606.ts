import { Migration } from '@mikro-orm/migrations';

export class Migration20261123154606 extends Migration {

  override name = 'Migration20261123154606';

  override up(): void | Promise<void> {
    this.addSql(`alter table "submission" add "status" text not null default 'completed', add "completed_at" timestamptz(3) null, add "source" text not null default 'api', add "channel" varchar(20) null;`);
    // Every submission so far came whole through the API: completed when it was created.
    this.addSql(`update "submission" set "completed_at" = "created_at";`);
    this.addSql(`create index "submission_survey_session_idx" on "submission" ("survey_id", "session_id");`);
    this.addSql(`create unique index "submission_page_order_survey_completed_uq" on "submission" ("order_id", "survey_id") where "status" = 'completed' and "source" = 'page' and "order_id" is not null;`);
    this.addSql(`alter table "submission" add constraint "submission_status_check" check ("status" in ('partial', 'completed'));`);
    this.addSql(`alter table "submission" add constraint "submission_source_check" check ("source" in ('api', 'page'));`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index "submission_survey_session_idx";`);
    this.addSql(`drop index "submission_page_order_survey_completed_uq";`);
    this.addSql(`alter table "submission" drop constraint "submission_status_check";`);
    this.addSql(`alter table "submission" drop constraint "submission_source_check";`);
    this.addSql(`alter table "submission" drop column "status", drop column "completed_at", drop column "source", drop column "channel";`);
  }

}
