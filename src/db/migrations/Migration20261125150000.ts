import { Migration } from '@mikro-orm/migrations';

const SLOTS = Array.from({ length: 11 }, (_, v) => `h${v}`);
const MOMENTS = ['count', 'sum', 'sum_sq', ...SLOTS];

/**
 * Analytics read speed (issue 13, bench/analytics): a dashboard's commonest question, "how is each location doing,
 * day by day", read 5 metrics x surveys x channels rows per location and day. Two more grains answer it from one row
 * per location and day (or month):
 * - `lday` / `lmon`: subject `metrics` (the ratings of every existing metric) or `nps` (the answers to every NPS step)
 *   of one location, across surveys and channels (survey_id and channel are ''). Histograms merge by addition, so the
 *   figures are those of the detailed rows summed; CSAT needs one scale, so the queries use these rows only when the
 *   business's metrics share their highest value.
 * - Only existing metrics count, as the detailed rows are read (joined to `metric`): analytics_whole_kind holds that
 *   rule for the trigger, the rebuild and this migration, and analytics_forget_metric takes a deleted metric's ratings
 *   out of them. (Since Migration20261125174500 the rule lives in analytics_whole_ratings alone, as a join the planner
 *   inlines; analytics_whole_kind is gone.)
 */
export class Migration20261125150000 extends Migration {

  override name = 'Migration20261125150000';

  override up(): void | Promise<void> {
    this.addSql(`create function analytics_whole_grains(p_day date) returns table(grain varchar, day date) language sql immutable as $$
  values ('lday'::varchar, p_day), ('lmon', date_trunc('month', p_day)::date)
$$;`);

    // The whole-location row a rating's subject counts in: `nps` for an NPS step, `metrics` for an existing metric,
    // none for a deleted one.
    this.addSql(`create function analytics_whole_kind(p_subject varchar) returns varchar language sql stable as $$
  select case when p_subject like 'step\\_%' then 'nps'
              when p_subject like 'mtr\\_%' and exists (select 1 from metric m where m.id = p_subject) then 'metrics' end
$$;`);

    // A submission's ratings as the whole-location rows count them.
    this.addSql(`create function analytics_whole_ratings(p_answers jsonb, p_subjects varchar[] default null) returns table(kind varchar, value int) language sql stable as $$
  select x.kind, x.value
    from (select analytics_whole_kind(r.subject) as kind, r.value from analytics_ratings(p_answers) r
           where p_subjects is null or r.subject = any(p_subjects)) x
   where x.kind is not null
$$;`);

    // As Migration20261124090000's, plus the whole-location rows (whole = true: survey and channel are '').
    this.addSql(`drop function analytics_apply(varchar, date, varchar, varchar, varchar, varchar, jsonb, int, varchar[]);`);
    this.addSql(`drop function analytics_contributions(date, jsonb, int, varchar[]);`);
    this.addSql(`create function analytics_contributions(p_day date, p_answers jsonb, p_sign int, p_subjects varchar[] default null)
  returns table(grain varchar, day date, subject varchar, whole boolean, count int, sum bigint, sum_sq bigint, h0 int, h1 int, h2 int, h3 int, h4 int, h5 int, h6 int, h7 int, h8 int, h9 int, h10 int, hist_high int[]) language sql stable as $$
  select g.grain, g.day, x.subject, false, s.*
    from (select x.subject, array_agg(x.value) as vals from analytics_ratings(p_answers) x
           where p_subjects is null or x.subject = any(p_subjects) group by x.subject) x
    cross join lateral analytics_slots(x.vals, p_sign) s
    cross join analytics_grains(p_day) g
  union all
  select g.grain, g.day, x.kind, true, s.*
    from (select x.kind, array_agg(x.value) as vals from analytics_whole_ratings(p_answers, p_subjects) x group by x.kind) x
    cross join lateral analytics_slots(x.vals, p_sign) s
    cross join analytics_whole_grains(p_day) g
$$;`);

    const set = (row: string, from: string) =>
      [...MOMENTS.map((c) => `${c} = ${row}.${c} + ${from}.${c}`), `hist_high = case when cardinality(${from}.hist_high) = 0 then ${row}.hist_high else analytics_hist_add(${row}.hist_high, ${from}.hist_high) end`].join(', ');
    this.addSql(`create function analytics_apply(p_business varchar, p_day date, p_survey varchar, p_location varchar, p_channel varchar,
    p_order varchar, p_answers jsonb, p_sign int, p_subjects varchar[] default null) returns void language plpgsql as $$
begin
  if p_sign > 0 then
    insert into analytics_rollup as r (business_id, grain, day, subject, location_id, survey_id, channel, ${MOMENTS.join(', ')}, hist_high)
    select p_business, x.grain, x.day, x.subject, coalesce(p_location, ''), case when x.whole then '' else coalesce(p_survey, '') end,
           case when x.whole then '' else coalesce(p_channel, '') end, ${MOMENTS.map((c) => `x.${c}`).join(', ')}, x.hist_high
      from analytics_contributions(p_day, p_answers, 1, p_subjects) x order by x.grain, x.day, x.subject
    on conflict (business_id, grain, day, subject, location_id, survey_id, channel) do update set ${set('r', 'excluded')};
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
    update analytics_rollup r set ${set('r', 'x')}
      from analytics_contributions(p_day, p_answers, -1, p_subjects) x
     where r.business_id = p_business and r.grain = x.grain and r.day = x.day and r.subject = x.subject
       and r.location_id = coalesce(p_location, '') and r.survey_id = case when x.whole then '' else coalesce(p_survey, '') end
       and r.channel = case when x.whole then '' else coalesce(p_channel, '') end;
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

    // A deleted metric's ratings leave the whole-location rows, as the detailed rows' join to metric drops them. The
    // caller holds the business's analytics lock exclusively, so no submission's trigger is between its check of the
    // metric and its commit.
    this.addSql(`create function analytics_forget_metric(p_business varchar, p_metric varchar) returns void language sql as $$
  update analytics_rollup w set ${MOMENTS.map((c) => `${c} = w.${c} - f.${c}`).join(', ')},
         hist_high = case when cardinality(f.hist_high) = 0 then w.hist_high else analytics_hist_add(w.hist_high, (select array_agg(-h order by i) from unnest(f.hist_high) with ordinality u(h, i))) end
    from (select case r.grain when 'day' then 'lday' else 'lmon' end as grain, r.day, r.location_id, ${MOMENTS.map((c) => `sum(r.${c}) as ${c}`).join(', ')},
                 analytics_hist_sum(r.hist_high) as hist_high
            from analytics_rollup r where r.business_id = p_business and r.subject = p_metric and r.grain in ('day', 'month')
           group by 1, 2, 3) f
   where w.business_id = p_business and w.grain = f.grain and w.day = f.day and w.subject = 'metrics'
     and w.location_id = f.location_id and w.survey_id = '' and w.channel = ''
$$;`);

    // The whole-location rows of what is already counted, from the detailed rows of existing metrics and NPS steps.
    this.addSql(`insert into analytics_rollup (business_id, grain, day, subject, location_id, survey_id, channel, ${MOMENTS.join(', ')}, hist_high)
  select r.business_id, case r.grain when 'day' then 'lday' else 'lmon' end, r.day, analytics_whole_kind(r.subject),
         r.location_id, '', '', ${MOMENTS.map((c) => `sum(r.${c})`).join(', ')}, analytics_hist_sum(r.hist_high)
    from analytics_rollup r
   where r.grain in ('day', 'month') and analytics_whole_kind(r.subject) is not null
   group by 1, 2, 3, 4, 5;`);
  }

  override down(): void | Promise<void> {
    throw new Error('Migration20261125150000 cannot be undone: restore a backup taken before it');
  }

}
