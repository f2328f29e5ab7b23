import { Migration } from '@mikro-orm/migrations';

/**
 * The lowest metric rating of each submission (issue 17: the portal's "a rating at most N" filter, and the API's
 * `lowestRating` filter), kept by PostgreSQL from the answers themselves, so no door can forget to set it. Ratings
 * that are not numbers (none pass validation) are skipped rather than failing the write.
 */
export class Migration20261124060000 extends Migration {

  override name = 'Migration20261124060000';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function "submission_lowest_rating"(answers jsonb) returns double precision language sql immutable parallel safe as $$
      select min((r.value)::double precision)
      from jsonb_array_elements(case when jsonb_typeof(answers) = 'array' then answers else '[]'::jsonb end) a,
           jsonb_each(case when jsonb_typeof(a -> 'ratings') = 'object' then a -> 'ratings' else '{}'::jsonb end) r
      where jsonb_typeof(r.value) = 'number'
    $$;`);
    this.addSql(`alter table "submission" add column "lowest_rating" double precision generated always as (submission_lowest_rating(answers)) stored;`);
    this.addSql(`create index "submission_survey_lowest_rating_idx" on "submission" ("survey_id", "lowest_rating");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`alter table "submission" drop column if exists "lowest_rating";`);
    this.addSql(`drop function if exists "submission_lowest_rating"(jsonb);`);
  }

}
