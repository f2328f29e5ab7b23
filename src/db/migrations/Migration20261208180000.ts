import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 52, item 4: the theme rollups (src/modules/theme-rollup/theme-rollup.entity.ts), filled here from the
 * analyses already stored, by the rule the service keeps them with from now on (theme-rollup.repo.ts applyThemes):
 * per answer and theme one count of its sentiment for the answer as a whole (dish '') and for each menu item it
 * names; each of the theme's words once per answer.
 */
export class Migration20261208180000 extends Migration {
  override name = 'Migration20261208180000';

  override up(): void | Promise<void> {
    this.addSql(`create table "analytics_theme_word_rollup" ("business_id" varchar(40) not null, "day" date not null, "theme" varchar(30) not null, "sentiment" varchar(8) not null, "word" varchar(100) not null, "location_id" varchar(40) not null, "survey_id" varchar(40) not null, "count" int not null, primary key ("business_id", "day", "theme", "sentiment", "word", "location_id", "survey_id"));`);
    this.addSql(`create table "analytics_theme_rollup" ("business_id" varchar(40) not null, "day" date not null, "theme" varchar(30) not null, "location_id" varchar(40) not null, "survey_id" varchar(40) not null, "channel" varchar(20) not null, "menu_item_id" varchar(40) not null, "positive" int not null, "neutral" int not null, "negative" int not null, primary key ("business_id", "day", "theme", "location_id", "survey_id", "channel", "menu_item_id"));`);
    this.addSql(`alter table "analytics_theme_word_rollup" add constraint "analytics_theme_word_rollup_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    this.addSql(`alter table "analytics_theme_rollup" add constraint "analytics_theme_rollup_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);
    const answers = `
      select s.business_id, s.analytics_day as day, coalesce(s.location_id, '') as location_id, coalesce(s.survey_id, '') as survey_id,
             coalesce(s.channel, '') as channel, x.submission_id, x.step, x.dishes, t.theme, t.sentiment, t.words
        from submission s join answer_analysis x on x.business_id = s.business_id and x.submission_id = s.id
        cross join lateral jsonb_to_recordset(x.themes) as t(theme text, sentiment text, words jsonb)
       where s.analytics_day is not null and t.theme is not null and t.sentiment in ('positive', 'neutral', 'negative')`;
    this.addSql(`insert into analytics_theme_rollup (business_id, day, theme, location_id, survey_id, channel, menu_item_id, positive, neutral, negative)
      select t.business_id, t.day, t.theme, t.location_id, t.survey_id, t.channel, d.menu_item_id,
             count(*) filter (where t.sentiment = 'positive'), count(*) filter (where t.sentiment = 'neutral'), count(*) filter (where t.sentiment = 'negative')
        from (${answers}) t
        cross join lateral (select '' as menu_item_id union select e->>'menuItem' from jsonb_array_elements(t.dishes) e where coalesce(e->>'menuItem', '') <> '') d
       group by 1, 2, 3, 4, 5, 6, 7;`);
    this.addSql(`insert into analytics_theme_word_rollup (business_id, day, theme, sentiment, word, location_id, survey_id, count)
      select u.business_id, u.day, u.theme, u.sentiment, u.word, u.location_id, u.survey_id, count(*)
        from (select distinct t.business_id, t.day, t.theme, t.sentiment, left(e.word, 100) as word, t.location_id, t.survey_id, t.submission_id, t.step
                from (${answers}) t
                cross join lateral jsonb_array_elements_text(case when jsonb_typeof(t.words) = 'array' then t.words else '[]' end) as e(word)
               where e.word <> '') u
       group by 1, 2, 3, 4, 5, 6, 7;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop table if exists "analytics_theme_word_rollup" cascade;`);
    this.addSql(`drop table if exists "analytics_theme_rollup" cascade;`);
  }
}
