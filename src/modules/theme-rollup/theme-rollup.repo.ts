import type { EntityManager } from '@mikro-orm/core';
import { sql } from 'kysely';
import { db } from '../../kit/db/db.js';

/**
 * The theme rollups' writes (analytics_theme_rollup, analytics_theme_word_rollup: theme-rollup.entity.ts). Each adds
 * or takes away what the stored analyses (answer_analysis) of a set of a business's submissions contribute, by each
 * submission's current day, location, survey and channel; the service calls them around every change of those.
 */

/** Which of a business's submissions a statement reads. */
export type ThemeScope = { submission: string } | { submissions: readonly string[] } | { location: string } | { survey: string } | { all: true };

const scoped = (scope: ThemeScope) => {
  if ('submission' in scope) return sql`s.id = ${scope.submission}`;
  if ('submissions' in scope) return sql`s.id = any(${[...scope.submissions]}::text[])`;
  if ('location' in scope) return sql`s.location_id = ${scope.location}`;
  if ('survey' in scope) return sql`s.survey_id = ${scope.survey}`;
  return sql`true`;
};

/**
 * The business's analytics lock, shared (the submission trigger takes it so, `rebuild-analytics` exclusively): taken
 * before any row lock, in a statement of its own, so a rebuild and a change never wait for each other in a circle.
 */
export async function shareAnalyticsLock(tx: EntityManager, business: string): Promise<void> {
  await sql`select pg_advisory_xact_lock_shared(hashtext('analytics:' || ${business}))`.execute(db(tx));
}

/**
 * Locks the submissions of `scope` against other changes (an analysis, a move, a deletion) until the transaction ends;
 * answers their ids. Its own statement, before the analyses are read, so those are read as they are once it holds.
 */
export async function lockSubmissions(tx: EntityManager, business: string, scope: ThemeScope): Promise<string[]> {
  const { rows } = await sql<{
    id: string;
  }>`select s.id from submission s where s.business_id = ${business} and ${scoped(scope)} order by s.id for no key update`.execute(db(tx));
  return rows.map((r) => r.id);
}

/**
 * Adds (`sign` 1) or takes away (-1) the contributions of the stored analyses of the scope's submissions, in one
 * statement: per answer and theme, one count of its sentiment in the row of dish '' and in the row of each menu item
 * it names; each word of the theme once per answer. Upserted in key order, so concurrent writers to one bucket queue
 * on its row and never deadlock. Rows that fall to zero stay (reads skip them; a rebuild drops them).
 */
export async function applyThemes(tx: EntityManager, business: string, scope: ThemeScope, sign: 1 | -1): Promise<void> {
  await sql`with a as (
  select s.business_id, s.analytics_day as day, coalesce(s.location_id, '') as location_id, coalesce(s.survey_id, '') as survey_id,
         coalesce(s.channel, '') as channel, x.submission_id, x.step, x.themes, x.dishes
    from submission s join answer_analysis x on x.business_id = s.business_id and x.submission_id = s.id
   where s.business_id = ${business} and ${scoped(scope)} and s.analytics_day is not null
), t as (
  select a.*, t.theme, t.sentiment, t.words
    from a cross join lateral jsonb_to_recordset(a.themes) as t(theme text, sentiment text, words jsonb)
   where t.theme is not null and t.sentiment in ('positive', 'neutral', 'negative')
), themes as (
  insert into analytics_theme_rollup as r (business_id, day, theme, location_id, survey_id, channel, menu_item_id, positive, neutral, negative)
  select t.business_id, t.day, t.theme, t.location_id, t.survey_id, t.channel, d.menu_item_id,
         ${sign} * count(*) filter (where t.sentiment = 'positive'), ${sign} * count(*) filter (where t.sentiment = 'neutral'),
         ${sign} * count(*) filter (where t.sentiment = 'negative')
    from t cross join lateral (
      select '' as menu_item_id
      union select e->>'menuItem' from jsonb_array_elements(t.dishes) e where coalesce(e->>'menuItem', '') <> ''
    ) d
   group by 1, 2, 3, 4, 5, 6, 7 order by 1, 2, 3, 4, 5, 6, 7
  on conflict (business_id, day, theme, location_id, survey_id, channel, menu_item_id) do update
    set positive = r.positive + excluded.positive, neutral = r.neutral + excluded.neutral, negative = r.negative + excluded.negative
)
insert into analytics_theme_word_rollup as w (business_id, day, theme, sentiment, word, location_id, survey_id, count)
select u.business_id, u.day, u.theme, u.sentiment, u.word, u.location_id, u.survey_id, ${sign} * count(*)
  from (select distinct t.business_id, t.day, t.theme, t.sentiment, left(e.word, 100) as word, t.location_id, t.survey_id, t.submission_id, t.step
          from t cross join lateral jsonb_array_elements_text(case when jsonb_typeof(t.words) = 'array' then t.words else '[]' end) as e(word)
         where e.word <> '') u
 group by 1, 2, 3, 4, 5, 6, 7 order by 1, 2, 3, 4, 5, 6, 7
on conflict (business_id, day, theme, sentiment, word, location_id, survey_id) do update set count = w.count + excluded.count`.execute(db(tx));
}

/** A business's theme rollups emptied, for a rebuild (in its transaction, holding the analytics lock exclusively). */
export async function clearThemes(tx: EntityManager, business: string): Promise<void> {
  await sql`delete from analytics_theme_rollup where business_id = ${business}`.execute(db(tx));
  await sql`delete from analytics_theme_word_rollup where business_id = ${business}`.execute(db(tx));
}

/** How many rows a business's theme rollups hold (the rebuild's report). */
export async function themeRollupRows(tx: EntityManager, business: string): Promise<{ themes: number; words: number }> {
  const { rows } = await sql<{ themes: number; words: number }>`select
    (select count(*)::int from analytics_theme_rollup where business_id = ${business}) as themes,
    (select count(*)::int from analytics_theme_word_rollup where business_id = ${business}) as words`.execute(db(tx));
  return rows[0];
}
