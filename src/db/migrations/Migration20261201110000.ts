import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 39: a device's latest response (every step and page view of a returning guest asks it) is read through
 * (survey, session) and ordered by (created_at, id), LIMIT 1. With an index on (survey, session) only, a prepared
 * plan made on small statistics walked the survey's responses newest first through (survey, created_at, id) and
 * filtered the session: every response of the survey for a guest who has none. The index now holds the order too,
 * so it answers both the filter and the order, and no plan has a reason to go another way.
 */
export class Migration20261201110000 extends Migration {
  override name = 'Migration20261201110000';

  override up(): void | Promise<void> {
    this.addSql(`drop index if exists "submission_survey_session_idx";`);
    this.addSql(`create index "submission_survey_session_idx" on "submission" ("survey_id", "session_id", "created_at", "id");`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop index if exists "submission_survey_session_idx";`);
    this.addSql(`create index "submission_survey_session_idx" on "submission" ("survey_id", "session_id");`);
  }
}
