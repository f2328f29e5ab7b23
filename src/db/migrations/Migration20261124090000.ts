import { Migration } from '@mikro-orm/migrations';

/**
 * Analytics read speed (issue 13, bench/analytics). The rollups gain:
 * - a month grain: each submission also adds to a row dated the first day of its month, so a year's total reads twelve
 *   rows per key instead of 365 (queries read whole months from it, and the days at the range's edges from the days);
 * - histogram slots as columns: h0 to h10 count the values 0 to 10 (every NPS answer, every rating on the usual
 *   scales), and hist_high[i] counts the value 10 + i, for scales above 10 only. Summing plain columns costs a fraction
 *   of subscripting an array thirteen times per row, and adding one row to another no longer calls a function.
 * Three functions hold the rule, for the trigger and the rebuild alike: analytics_grains (the rows a day adds to),
 * analytics_slots (what a set of values adds or removes) and analytics_contributions (a submission's rows).
 */
export class Migration20261124090000 extends Migration {

  override name = 'Migration20261124090000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "analytics_rollup" add column "grain" varchar(5) not null default 'day', add column "h0" int not null default 0, add column "h1" int not null default 0, add column "h2" int not null default 0, add column "h3" int not null default 0, add column "h4" int not null default 0, add column "h5" int not null default 0, add column "h6" int not null default 0, add column "h7" int not null default 0, add column "h8" int not null default 0, add column "h9" int not null default 0, add column "h10" int not null default 0, add column "hist_high" int[] not null default '{}';`);
    this.addSql(`update "analytics_rollup" set "h0" = coalesce(hist[1], 0), "h1" = coalesce(hist[2], 0), "h2" = coalesce(hist[3], 0), "h3" = coalesce(hist[4], 0), "h4" = coalesce(hist[5], 0), "h5" = coalesce(hist[6], 0), "h6" = coalesce(hist[7], 0), "h7" = coalesce(hist[8], 0), "h8" = coalesce(hist[9], 0), "h9" = coalesce(hist[10], 0), "h10" = coalesce(hist[11], 0), "hist_high" = coalesce(hist[12:], '{}');`);
    this.addSql(`alter table "analytics_rollup" drop column "hist", alter column "grain" drop default, alter column "h0" drop default, alter column "h1" drop default, alter column "h2" drop default, alter column "h3" drop default, alter column "h4" drop default, alter column "h5" drop default, alter column "h6" drop default, alter column "h7" drop default, alter column "h8" drop default, alter column "h9" drop default, alter column "h10" drop default, alter column "hist_high" drop default;`);
    this.addSql(`alter table "analytics_rollup" drop constraint "analytics_rollup_pkey", add primary key ("business_id", "grain", "day", "subject", "location_id", "survey_id", "channel");`);

    // Histograms may be empty: '{}' rather than NULL.
    this.addSql(`create or replace function analytics_hist_add(a int[], b int[]) returns int[] language sql immutable as $$
  select coalesce(array_agg(coalesce(a[i], 0) + coalesce(b[i], 0) order by i), '{}')
    from generate_series(1, greatest(coalesce(cardinality(a), 0), coalesce(cardinality(b), 0))) i
$$;`);

    this.addSql(`create aggregate analytics_hist_sum(int[]) (sfunc = analytics_hist_add, stype = int[], initcond = '{}');`);

    // The rows of each grain a day's ratings add to.
    this.addSql(`create function analytics_grains(p_day date) returns table(grain varchar, day date) language sql immutable as $$
  values ('day'::varchar, p_day), ('month', date_trunc('month', p_day)::date)
$$;`);

    // What a set of values adds (p_sign 1) or removes (-1).
    this.addSql(`create function analytics_slots(p_values int[], p_sign int)
  returns table(count int, sum bigint, sum_sq bigint, h0 int, h1 int, h2 int, h3 int, h4 int, h5 int, h6 int, h7 int, h8 int, h9 int, h10 int, hist_high int[]) language sql immutable as $$
  select (p_sign * count(*))::int, p_sign * sum(v), p_sign * sum(v * v),
         (p_sign * count(*) filter (where v = 0))::int,
         (p_sign * count(*) filter (where v = 1))::int,
         (p_sign * count(*) filter (where v = 2))::int,
         (p_sign * count(*) filter (where v = 3))::int,
         (p_sign * count(*) filter (where v = 4))::int,
         (p_sign * count(*) filter (where v = 5))::int,
         (p_sign * count(*) filter (where v = 6))::int,
         (p_sign * count(*) filter (where v = 7))::int,
         (p_sign * count(*) filter (where v = 8))::int,
         (p_sign * count(*) filter (where v = 9))::int,
         (p_sign * count(*) filter (where v = 10))::int,
         (select coalesce(array_agg(p_sign * (select count(*) from unnest(p_values) w where w = i)::int order by i), '{}')
            from generate_series(11, (select max(w) from unnest(p_values) w)) i)
    from unnest(p_values) v
$$;`);

    // One submission's rows: per grain and subject, what its answers add (1) or remove (-1); only p_subjects' when given.
    this.addSql(`create function analytics_contributions(p_day date, p_answers jsonb, p_sign int, p_subjects varchar[] default null)
  returns table(grain varchar, day date, subject varchar, count int, sum bigint, sum_sq bigint, h0 int, h1 int, h2 int, h3 int, h4 int, h5 int, h6 int, h7 int, h8 int, h9 int, h10 int, hist_high int[]) language sql stable as $$
  select g.grain, g.day, x.subject, s.*
    from (select x.subject, array_agg(x.value) as vals from analytics_ratings(p_answers) x
           where p_subjects is null or x.subject = any(p_subjects) group by x.subject) x
    cross join lateral analytics_slots(x.vals, p_sign) s
    cross join analytics_grains(p_day) g
$$;`);

    // As before (Migration20261123175513), over both grains and for p_subjects only when given: rows touched in key
    // order, removals only update.
    this.addSql(`drop function analytics_apply(varchar, date, varchar, varchar, varchar, varchar, jsonb, int);`);
    this.addSql(`create function analytics_apply(p_business varchar, p_day date, p_survey varchar, p_location varchar, p_channel varchar,
    p_order varchar, p_answers jsonb, p_sign int, p_subjects varchar[] default null) returns void language plpgsql as $$
begin
  if p_sign > 0 then
    insert into analytics_rollup as r (business_id, grain, day, subject, location_id, survey_id, channel, count, sum, sum_sq, h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10, hist_high)
    select p_business, x.grain, x.day, x.subject, coalesce(p_location, ''), coalesce(p_survey, ''), coalesce(p_channel, ''),
           x.count, x.sum, x.sum_sq, x.h0, x.h1, x.h2, x.h3, x.h4, x.h5, x.h6, x.h7, x.h8, x.h9, x.h10, x.hist_high
      from analytics_contributions(p_day, p_answers, 1, p_subjects) x order by x.grain, x.day, x.subject
    on conflict (business_id, grain, day, subject, location_id, survey_id, channel) do update
      set count = r.count + excluded.count, sum = r.sum + excluded.sum, sum_sq = r.sum_sq + excluded.sum_sq, h0 = r.h0 + excluded.h0, h1 = r.h1 + excluded.h1, h2 = r.h2 + excluded.h2, h3 = r.h3 + excluded.h3, h4 = r.h4 + excluded.h4, h5 = r.h5 + excluded.h5, h6 = r.h6 + excluded.h6, h7 = r.h7 + excluded.h7, h8 = r.h8 + excluded.h8, h9 = r.h9 + excluded.h9, h10 = r.h10 + excluded.h10,
          hist_high = case when cardinality(excluded.hist_high) = 0 then r.hist_high else analytics_hist_add(r.hist_high, excluded.hist_high) end;
    if p_order is not null then
      insert into analytics_menu_rollup as m (business_id, day, subject, menu_item_id, count, sum, sum_sq)
      select p_business, p_day, x.subject, oi.menu_item_id, count(*), sum(x.value), sum(x.value * x.value)
        from analytics_ratings(p_answers) x
        cross join (select distinct menu_item_id from order_item where order_id = p_order and menu_item_id is not null) oi
       where x.subject like 'mtr\\_%' and (p_subjects is null or x.subject = any(p_subjects))
       group by x.subject, oi.menu_item_id order by x.subject, oi.menu_item_id
      on conflict (business_id, day, subject, menu_item_id) do update
        set count = m.count + excluded.count, sum = m.sum + excluded.sum, sum_sq = m.sum_sq + excluded.sum_sq;
    end if;
  else
    update analytics_rollup r
       set count = r.count + x.count, sum = r.sum + x.sum, sum_sq = r.sum_sq + x.sum_sq, h0 = r.h0 + x.h0, h1 = r.h1 + x.h1, h2 = r.h2 + x.h2, h3 = r.h3 + x.h3, h4 = r.h4 + x.h4, h5 = r.h5 + x.h5, h6 = r.h6 + x.h6, h7 = r.h7 + x.h7, h8 = r.h8 + x.h8, h9 = r.h9 + x.h9, h10 = r.h10 + x.h10,
           hist_high = case when cardinality(x.hist_high) = 0 then r.hist_high else analytics_hist_add(r.hist_high, x.hist_high) end
      from analytics_contributions(p_day, p_answers, -1, p_subjects) x
     where r.business_id = p_business and r.grain = x.grain and r.day = x.day and r.subject = x.subject
       and r.location_id = coalesce(p_location, '') and r.survey_id = coalesce(p_survey, '') and r.channel = coalesce(p_channel, '');
    if p_order is not null then
      update analytics_menu_rollup m
         set count = m.count - x.count, sum = m.sum - x.sum, sum_sq = m.sum_sq - x.sum_sq
        from (select x.subject, oi.menu_item_id, count(*) as count, sum(x.value) as sum, sum(x.value * x.value) as sum_sq
                from analytics_ratings(p_answers) x
                cross join (select distinct menu_item_id from order_item where order_id = p_order and menu_item_id is not null) oi
               where x.subject like 'mtr\\_%' and (p_subjects is null or x.subject = any(p_subjects))
               group by x.subject, oi.menu_item_id) x
       where m.business_id = p_business and m.day = p_day and m.subject = x.subject and m.menu_item_id = x.menu_item_id;
    end if;
  end if;
end $$;`);

    // The trigger of Migration20261123175513, calling the new analytics_apply. An update that keeps a submission in the
    // same buckets (most do: a guest's next step, a completion, a text answer) moves only the subjects whose values
    // changed, often none, instead of taking out and putting back every rating of the response, in both grains.
    this.addSql(`create or replace function analytics_submission_change() returns trigger language plpgsql as $$
declare
  v_subjects varchar[];
begin
  if current_setting('analytics.rebuild', true) = 'on' then return null; end if;
  if tg_op = 'UPDATE' and old.analytics_day is not null and new.analytics_day is not distinct from old.analytics_day
     and new.survey_id is not distinct from old.survey_id and new.location_id is not distinct from old.location_id
     and new.channel is not distinct from old.channel and new.order_id is not distinct from old.order_id then
    if new.answers = old.answers then return null; end if;
    select coalesce(array_agg(subject), '{}') into v_subjects
      from (select subject, array_agg(value order by value) as v from analytics_ratings(old.answers) group by subject) o
      full join (select subject, array_agg(value order by value) as v from analytics_ratings(new.answers) group by subject) n using (subject)
     where o.v is distinct from n.v;
    if cardinality(v_subjects) = 0 then return null; end if;
  end if;
  perform pg_advisory_xact_lock_shared(hashtext('analytics:' || coalesce(new.business_id, old.business_id)));
  -- A row written before this feature (no day yet) has not been counted: nothing to remove.
  if tg_op <> 'INSERT' and old.analytics_day is not null then
    perform analytics_apply(old.business_id, old.analytics_day, old.survey_id, old.location_id, old.channel, old.order_id, old.answers, -1, v_subjects);
  end if;
  if tg_op <> 'DELETE' then
    perform analytics_apply(new.business_id, new.analytics_day, new.survey_id, new.location_id, new.channel, new.order_id, new.answers, 1, v_subjects);
  end if;
  return null;
end $$;`);

    // Deferred to the commit: every guest of a survey adds to the same few rows, and a row's lock is held until commit;
    // taken at the first write it was held across the transaction's remaining round trips (its event, the next
    // statements), so concurrent guests queued on it (bench/survey-page found them waiting there most of the time).
    this.addSql(`drop trigger analytics_submission_change on submission;`);
    this.addSql(`create constraint trigger analytics_submission_change after insert or update or delete on submission deferrable initially deferred for each row execute function analytics_submission_change();`);

    // Month rows for what is already counted, from the day rows.
    this.addSql(`insert into analytics_rollup (business_id, grain, day, subject, location_id, survey_id, channel, count, sum, sum_sq, h0, h1, h2, h3, h4, h5, h6, h7, h8, h9, h10, hist_high)
  select business_id, 'month', date_trunc('month', day)::date, subject, location_id, survey_id, channel,
         sum(count), sum(sum), sum(sum_sq), sum(h0), sum(h1), sum(h2), sum(h3), sum(h4), sum(h5), sum(h6), sum(h7), sum(h8), sum(h9), sum(h10),
         analytics_hist_sum(hist_high)
    from analytics_rollup where grain = 'day'
   group by business_id, date_trunc('month', day), subject, location_id, survey_id, channel;`);
  }

  override down(): void | Promise<void> {
    throw new Error('Migration20261124090000 cannot be undone: restore a backup taken before it');
  }

}
