import { Migration } from '@mikro-orm/migrations';

/**
 * Survey pages (issue 12): a write to a survey, its steps, metrics or locations notifies `survey_pages` at commit, so
 * the page caches of every process forget what they hold (src/modules/business/survey-page.signal.ts).
 */
export class Migration20261123182218 extends Migration {

  override name = 'Migration20261123182218';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function "location_survey_pages_changed_fn"() returns trigger as $$ begin perform pg_notify('survey_pages', ''); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "survey_pages_changed" AFTER INSERT OR UPDATE OR DELETE on "location" for each STATEMENT execute function "location_survey_pages_changed_fn"();`);

    this.addSql(`create or replace function "metric_survey_pages_changed_fn"() returns trigger as $$ begin perform pg_notify('survey_pages', ''); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "survey_pages_changed" AFTER INSERT OR UPDATE OR DELETE on "metric" for each STATEMENT execute function "metric_survey_pages_changed_fn"();`);

    this.addSql(`create or replace function "survey_survey_pages_changed_fn"() returns trigger as $$ begin perform pg_notify('survey_pages', ''); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "survey_pages_changed" AFTER INSERT OR UPDATE OR DELETE on "survey" for each STATEMENT execute function "survey_survey_pages_changed_fn"();`);

    this.addSql(`create or replace function "survey_step_survey_pages_changed_fn"() returns trigger as $$ begin perform pg_notify('survey_pages', ''); return null; end; $$ language plpgsql;`);
    this.addSql(`create trigger "survey_pages_changed" AFTER INSERT OR UPDATE OR DELETE on "survey_step" for each STATEMENT execute function "survey_step_survey_pages_changed_fn"();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists "survey_pages_changed" on "location";`);
    this.addSql(`drop function if exists "location_survey_pages_changed_fn"();`);

    this.addSql(`drop trigger if exists "survey_pages_changed" on "metric";`);
    this.addSql(`drop function if exists "metric_survey_pages_changed_fn"();`);

    this.addSql(`drop trigger if exists "survey_pages_changed" on "survey";`);
    this.addSql(`drop function if exists "survey_survey_pages_changed_fn"();`);

    this.addSql(`drop trigger if exists "survey_pages_changed" on "survey_step";`);
    this.addSql(`drop function if exists "survey_step_survey_pages_changed_fn"();`);
  }

}
