import { Migration } from '@mikro-orm/migrations';

const SLOTS = Array.from({ length: 11 }, (_, v) => `h${v}`);
const MOMENTS = ['count', 'sum', 'sum_sq', ...SLOTS];
const KEY = ['business_id', 'grain', 'day', 'subject', 'location_id', 'survey_id', 'channel'];

/** analytics_apply as Migration20261125150000 wrote it, with the rollup's key columns given (`staff` or not). */
function applyFunction(withStaff: boolean): string {
  const set = (row: string, from: string) =>
    [...MOMENTS.map((c) => `${c} = ${row}.${c} + ${from}.${c}`), `hist_high = case when cardinality(${from}.hist_high) = 0 then ${row}.hist_high else analytics_hist_add(${row}.hist_high, ${from}.hist_high) end`].join(', ');
  const staffParam = withStaff ? 'p_staff varchar, ' : '';
  const staffColumn = withStaff ? ', staff' : '';
  const staffValue = withStaff ? `, case when x.whole then '' else coalesce(p_staff, '') end` : '';
  const staffMatch = withStaff ? `\n       and r.staff = case when x.whole then '' else coalesce(p_staff, '') end` : '';
  return `create function analytics_apply(p_business varchar, p_day date, p_survey varchar, p_location varchar, p_channel varchar, ${staffParam}
    p_order varchar, p_answers jsonb, p_sign int, p_subjects varchar[] default null) returns void language plpgsql as $$
begin
  if p_sign > 0 then
    insert into analytics_rollup as r (business_id, grain, day, subject, location_id, survey_id, channel${staffColumn}, ${MOMENTS.join(', ')}, hist_high)
    select p_business, x.grain, x.day, x.subject, coalesce(p_location, ''), case when x.whole then '' else coalesce(p_survey, '') end,
           case when x.whole then '' else coalesce(p_channel, '') end${staffValue}, ${MOMENTS.map((c) => `x.${c}`).join(', ')}, x.hist_high
      from analytics_contributions(p_day, p_answers, 1, p_subjects) x order by x.grain, x.day, x.subject
    on conflict (${[...KEY, ...(withStaff ? ['staff'] : [])].join(', ')}) do update set ${set('r', 'excluded')};
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
       and r.channel = case when x.whole then '' else coalesce(p_channel, '') end${staffMatch};
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
end $$;`;
}

/**
 * The submission trigger of Migration20261124090000; with `withStaff`, its buckets are keyed by the staff too, and it
 * keeps the direct dish ratings of `items` steps (analytics_items_apply) beside the metric and NPS rollups.
 */
function changeFunction(withStaff: boolean): string {
  const same = `old.analytics_day is not null and new.analytics_day is not distinct from old.analytics_day
     and new.survey_id is not distinct from old.survey_id and new.location_id is not distinct from old.location_id
     and new.channel is not distinct from old.channel and new.order_id is not distinct from old.order_id`;
  const subjects = `select coalesce(array_agg(subject), '{}') into v_subjects
      from (select subject, array_agg(value order by value) as v from analytics_ratings(old.answers) group by subject) o
      full join (select subject, array_agg(value order by value) as v from analytics_ratings(new.answers) group by subject) n using (subject)
     where o.v is distinct from n.v;`;
  if (!withStaff) {
    return `create or replace function analytics_submission_change() returns trigger language plpgsql as $$
declare
  v_subjects varchar[];
begin
  if current_setting('analytics.rebuild', true) = 'on' then return null; end if;
  if tg_op = 'UPDATE' and ${same} then
    if new.answers = old.answers then return null; end if;
    ${subjects}
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
end $$;`;
  }
  return `create or replace function analytics_submission_change() returns trigger language plpgsql as $$
declare
  v_subjects varchar[];
  v_rated boolean := true;
  v_items boolean := true;
begin
  if current_setting('analytics.rebuild', true) = 'on' then return null; end if;
  if tg_op = 'UPDATE' and ${same}
     and new.analytics_staff is not distinct from old.analytics_staff then
    if new.answers = old.answers then return null; end if;
    ${subjects}
    v_rated := cardinality(v_subjects) > 0;
    v_items := (select array_agg(i.menu_item_id || '=' || i.value order by i.menu_item_id) from analytics_item_ratings(old.answers) i)
               is distinct from (select array_agg(i.menu_item_id || '=' || i.value order by i.menu_item_id) from analytics_item_ratings(new.answers) i);
    if not v_rated and not v_items then return null; end if;
  end if;
  perform pg_advisory_xact_lock_shared(hashtext('analytics:' || coalesce(new.business_id, old.business_id)));
  -- A row written before the rollups (no day yet) has not been counted: nothing to remove.
  if tg_op <> 'INSERT' and old.analytics_day is not null then
    if v_rated then
      perform analytics_apply(old.business_id, old.analytics_day, old.survey_id, old.location_id, old.channel, old.analytics_staff, old.order_id, old.answers, -1, v_subjects);
    end if;
    if v_items then perform analytics_items_apply(old.business_id, old.analytics_day, old.answers, -1); end if;
  end if;
  if tg_op <> 'DELETE' then
    if v_rated then
      perform analytics_apply(new.business_id, new.analytics_day, new.survey_id, new.location_id, new.channel, new.analytics_staff, new.order_id, new.answers, 1, v_subjects);
    end if;
    if v_items then perform analytics_items_apply(new.business_id, new.analytics_day, new.answers, 1); end if;
  end if;
  return null;
end $$;`;
}

const DAY_FUNCTION = (withStaff: boolean) => `create or replace function analytics_submission_day() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' or new.analytics_day is null or new.location_id is distinct from old.location_id
     or new.created_at is distinct from old.created_at then
    new.analytics_day := analytics_day_of(new.business_id, new.location_id, new.created_at);
  end if;${withStaff ? `
  if tg_op = 'INSERT' or new.order_id is distinct from old.order_id then
    new.analytics_staff := analytics_staff_of(new.order_id);
  end if;` : ''}
  return new;
end $$;`;

/**
 * Issue 36: dishes rated directly, and figures by server.
 * - `items` steps: the guest rates each dish of the linked order; answers carry `items: {<menu item id>: 1 to 5}`.
 *   Those ratings go to analytics_menu_rollup under subject `items` (the metric ratings through the order's lines keep
 *   their metric id), by analytics_items_apply, called by the submission trigger when they change.
 * - Staff: business.staff_key names the order metadata key of the server or cashier; a submission's
 *   analytics_staff is its order's value of that key, fixed when the submission is written or its order changes (as
 *   analytics_day is), and analytics_rollup's detailed rows gain `staff` in their key ('' for none; the
 *   whole-location rows keep ''). Submissions counted before this keep staff '' until `admin rebuild-analytics`.
 */
export class Migration20261127083000 extends Migration {

  override name = 'Migration20261127083000';

  override up(): void | Promise<void> {
    this.addSql(`alter table "business" add "staff_key" varchar(100) not null default 'server';`);

    this.addSql(`alter table "analytics_rollup" drop constraint "analytics_rollup_pkey";`);
    this.addSql(`alter table "analytics_rollup" add "staff" varchar(100) not null default '';`);
    this.addSql(`alter table "analytics_rollup" add primary key ("business_id", "grain", "day", "subject", "location_id", "survey_id", "channel", "staff");`);

    this.addSql(`alter table "submission" add "analytics_staff" varchar(100) null;`);

    this.addSql(`alter table "survey_step" drop constraint "survey_step_type_check";`);
    this.addSql(`alter table "survey_step" add constraint "survey_step_type_check" check ("type" in ('metrics', 'text', 'choice', 'nps', 'info', 'location', 'contact', 'items'));`);

    // A submission's direct dish ratings: each `items` answer's menu item id and rating (integers 1 to 5).
    this.addSql(`create function analytics_item_ratings(p_answers jsonb) returns table(menu_item_id varchar, value int) language sql immutable as $$
  select r.key::varchar, r.value::int
    from jsonb_array_elements(case when jsonb_typeof(p_answers) = 'array' then p_answers else '[]' end) a,
         jsonb_each_text(case when jsonb_typeof(a->'items') = 'object' then a->'items' else '{}' end) r
   where r.value ~ '^[1-5]$'
$$;`);

    // Adds (1) or removes (-1) a submission's direct dish ratings, rows in key order; a removal only updates.
    this.addSql(`create function analytics_items_apply(p_business varchar, p_day date, p_answers jsonb, p_sign int) returns void language plpgsql as $$
begin
  if p_sign > 0 then
    insert into analytics_menu_rollup as m (business_id, day, subject, menu_item_id, count, sum, sum_sq)
    select p_business, p_day, 'items', x.menu_item_id, count(*), sum(x.value), sum(x.value * x.value)
      from analytics_item_ratings(p_answers) x group by x.menu_item_id order by x.menu_item_id
    on conflict (business_id, day, subject, menu_item_id) do update
      set count = m.count + excluded.count, sum = m.sum + excluded.sum, sum_sq = m.sum_sq + excluded.sum_sq;
  else
    update analytics_menu_rollup m
       set count = m.count - x.count, sum = m.sum - x.sum, sum_sq = m.sum_sq - x.sum_sq
      from (select x.menu_item_id, count(*) as count, sum(x.value) as sum, sum(x.value * x.value) as sum_sq
              from analytics_item_ratings(p_answers) x group by x.menu_item_id) x
     where m.business_id = p_business and m.day = p_day and m.subject = 'items' and m.menu_item_id = x.menu_item_id;
  end if;
end $$;`);

    // The server or cashier of an order: its metadata's value of its business's staff key, trimmed, at most 100 characters.
    this.addSql(`create function analytics_staff_of(p_order varchar) returns varchar language plpgsql stable as $$
begin
  if p_order is null then return null; end if;
  return (select left(nullif(btrim(o.metadata ->> b.staff_key), ''), 100)
            from customer_order o join business b on b.id = o.business_id where o.id = p_order);
end $$;`);

    this.addSql(`drop function analytics_apply(varchar, date, varchar, varchar, varchar, varchar, jsonb, int, varchar[]);`);
    this.addSql(applyFunction(true));
    this.addSql(DAY_FUNCTION(true));
    this.addSql(changeFunction(true));
  }

  override down(): void | Promise<void> {
    this.addSql(changeFunction(false));
    this.addSql(DAY_FUNCTION(false));
    this.addSql(`drop function analytics_apply(varchar, date, varchar, varchar, varchar, varchar, varchar, jsonb, int, varchar[]);`);
    this.addSql(applyFunction(false));
    this.addSql(`drop function analytics_staff_of(varchar);`);
    this.addSql(`drop function analytics_items_apply(varchar, date, jsonb, int);`);
    this.addSql(`drop function analytics_item_ratings(jsonb);`);

    // Each staff's rows merge back into the row without staff, then go.
    this.addSql(`insert into analytics_rollup as r (${KEY.join(', ')}, staff, ${MOMENTS.join(', ')}, hist_high)
  select ${KEY.join(', ')}, '', ${MOMENTS.map((c) => `sum(${c})`).join(', ')}, analytics_hist_sum(hist_high)
    from analytics_rollup where staff <> '' group by ${KEY.join(', ')}
  on conflict (${KEY.join(', ')}, staff) do update set ${MOMENTS.map((c) => `${c} = r.${c} + excluded.${c}`).join(', ')}, hist_high = analytics_hist_add(r.hist_high, excluded.hist_high);`);
    this.addSql(`delete from analytics_rollup where staff <> '';`);
    this.addSql(`delete from analytics_menu_rollup where subject = 'items';`);
    this.addSql(`alter table "analytics_rollup" drop constraint "analytics_rollup_pkey";`);
    this.addSql(`alter table "analytics_rollup" drop column "staff";`);
    this.addSql(`alter table "analytics_rollup" add primary key ("business_id", "grain", "day", "subject", "location_id", "survey_id", "channel");`);

    this.addSql(`alter table "submission" drop column "analytics_staff";`);
    this.addSql(`delete from "survey_step" where "type" = 'items';`);
    this.addSql(`alter table "survey_step" drop constraint "survey_step_type_check";`);
    this.addSql(`alter table "survey_step" add constraint "survey_step_type_check" check ("type" in ('metrics', 'text', 'choice', 'nps', 'info', 'location', 'contact'));`);

    this.addSql(`alter table "business" drop column "staff_key";`);
  }

}
