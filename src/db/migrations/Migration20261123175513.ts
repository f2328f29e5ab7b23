import { Migration } from '@mikro-orm/migrations';

export class Migration20261123175513 extends Migration {

  override name = 'Migration20261123175513';

  override up(): void | Promise<void> {
    this.addSql(`create table "analytics_rollup" ("business_id" varchar(40) not null, "day" date not null, "subject" varchar(40) not null, "location_id" varchar(40) not null, "survey_id" varchar(40) not null, "channel" varchar(20) not null, "count" int not null, "sum" bigint not null, "sum_sq" bigint not null, "hist" int[] not null, primary key ("business_id", "day", "subject", "location_id", "survey_id", "channel"));`);

    this.addSql(`create table "analytics_menu_rollup" ("business_id" varchar(40) not null, "day" date not null, "subject" varchar(40) not null, "menu_item_id" varchar(40) not null, "count" int not null, "sum" bigint not null, "sum_sq" bigint not null, primary key ("business_id", "day", "subject", "menu_item_id"));`);

    this.addSql(`alter table "business" add "time_zone" varchar(64) null;`);

    this.addSql(`alter table "location" add "time_zone" varchar(64) null;`);

    this.addSql(`alter table "submission" add "analytics_day" date null;`);

    this.addSql(`alter table "analytics_rollup" add constraint "analytics_rollup_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);

    this.addSql(`alter table "analytics_menu_rollup" add constraint "analytics_menu_rollup_business_id_foreign" foreign key ("business_id") references "business" ("id") on delete cascade;`);

    // The analytics rule, in one place that every writer of `submission` passes through (API, guest pages, ON DELETE
    // SET NULL cascades, raw SQL, rebuilds): a trigger keeps analytics_rollup and analytics_menu_rollup exact in the
    // transaction of each write. See src/modules/analytics/analytics.repo.ts for the queries that read them.

    // The values a submission's answers contribute: every metric rating (integers 0 to 100, the metric scales' limits),
    // and the value of each answer to an `nps` step (0 to 10).
    this.addSql(`create function analytics_ratings(p_answers jsonb) returns table(subject varchar, value int) language sql stable as $$
  select r.key::varchar, r.value::int
    from jsonb_array_elements(case when jsonb_typeof(p_answers) = 'array' then p_answers else '[]' end) a,
         jsonb_each_text(case when jsonb_typeof(a->'ratings') = 'object' then a->'ratings' else '{}' end) r
   where r.value ~ '^[0-9]{1,3}$' and r.value::int <= 100
  union all
  select st.id, (a->>'value')::int
    from jsonb_array_elements(case when jsonb_typeof(p_answers) = 'array' then p_answers else '[]' end) a
    join survey_step st on st.id = a->>'step' and st.type = 'nps'
   where jsonb_typeof(a->'value') = 'number' and (a->>'value') ~ '^[0-9]{1,2}$' and (a->>'value')::int <= 10
$$;`);

    // Histograms are int arrays where hist[v + 1] counts the value v; they add element by element.
    this.addSql(`create function analytics_hist(p_values int[], p_sign int) returns int[] language sql immutable as $$
  select array_agg(p_sign * (select count(*) from unnest(p_values) v where v = i)::int order by i)
    from generate_series(0, (select max(v) from unnest(p_values) v)) i
$$;`);
    this.addSql(`create function analytics_hist_add(a int[], b int[]) returns int[] language sql immutable as $$
  select array_agg(coalesce(a[i], 0) + coalesce(b[i], 0) order by i)
    from generate_series(1, greatest(coalesce(cardinality(a), 0), coalesce(cardinality(b), 0))) i
$$;`);

    // The calendar day of an instant in the location's time zone, else the business's, else UTC.
    this.addSql(`create function analytics_day_of(p_business varchar, p_location varchar, p_at timestamptz) returns date language sql stable as $$
  select (p_at at time zone coalesce((select time_zone from location where id = p_location),
                                      (select time_zone from business where id = p_business), 'UTC'))::date
$$;`);

    // Adds (p_sign 1) or removes (p_sign -1) one submission's contribution. Rows are touched in key order, so
    // concurrent writers of the same buckets queue on row locks instead of deadlocking. A removal only updates: it
    // never creates a row (a business being deleted has no rollups left to update, and none may be created for it).
    this.addSql(`create function analytics_apply(p_business varchar, p_day date, p_survey varchar, p_location varchar, p_channel varchar,
    p_order varchar, p_answers jsonb, p_sign int) returns void language plpgsql as $$
begin
  if p_sign > 0 then
    insert into analytics_rollup as r (business_id, day, subject, location_id, survey_id, channel, count, sum, sum_sq, hist)
    select p_business, p_day, x.subject, coalesce(p_location, ''), coalesce(p_survey, ''), coalesce(p_channel, ''),
           count(*), sum(x.value), sum(x.value * x.value), analytics_hist(array_agg(x.value), 1)
      from analytics_ratings(p_answers) x group by x.subject order by x.subject
    on conflict (business_id, day, subject, location_id, survey_id, channel) do update
      set count = r.count + excluded.count, sum = r.sum + excluded.sum, sum_sq = r.sum_sq + excluded.sum_sq,
          hist = analytics_hist_add(r.hist, excluded.hist);
    if p_order is not null then
      insert into analytics_menu_rollup as m (business_id, day, subject, menu_item_id, count, sum, sum_sq)
      select p_business, p_day, x.subject, oi.menu_item_id, count(*), sum(x.value), sum(x.value * x.value)
        from analytics_ratings(p_answers) x
        cross join (select distinct menu_item_id from order_item where order_id = p_order and menu_item_id is not null) oi
       where x.subject like 'mtr\\_%'
       group by x.subject, oi.menu_item_id order by x.subject, oi.menu_item_id
      on conflict (business_id, day, subject, menu_item_id) do update
        set count = m.count + excluded.count, sum = m.sum + excluded.sum, sum_sq = m.sum_sq + excluded.sum_sq;
    end if;
  else
    update analytics_rollup r
       set count = r.count - x.count, sum = r.sum - x.sum, sum_sq = r.sum_sq - x.sum_sq, hist = analytics_hist_add(r.hist, x.hist)
      from (select x.subject, count(*) as count, sum(x.value) as sum, sum(x.value * x.value) as sum_sq,
                   analytics_hist(array_agg(x.value), -1) as hist
              from analytics_ratings(p_answers) x group by x.subject) x
     where r.business_id = p_business and r.day = p_day and r.subject = x.subject and r.location_id = coalesce(p_location, '')
       and r.survey_id = coalesce(p_survey, '') and r.channel = coalesce(p_channel, '');
    if p_order is not null then
      update analytics_menu_rollup m
         set count = m.count - x.count, sum = m.sum - x.sum, sum_sq = m.sum_sq - x.sum_sq
        from (select x.subject, oi.menu_item_id, count(*) as count, sum(x.value) as sum, sum(x.value * x.value) as sum_sq
                from analytics_ratings(p_answers) x
                cross join (select distinct menu_item_id from order_item where order_id = p_order and menu_item_id is not null) oi
               where x.subject like 'mtr\\_%'
               group by x.subject, oi.menu_item_id) x
       where m.business_id = p_business and m.day = p_day and m.subject = x.subject and m.menu_item_id = x.menu_item_id;
    end if;
  end if;
end $$;`);

    // The day is fixed when the submission is written (or its location changes) and kept on the row, so a later
    // removal finds the buckets it was added to even after a location (and its time zone) is gone.
    this.addSql(`create function analytics_submission_day() returns trigger language plpgsql as $$
begin
  if tg_op = 'INSERT' or new.analytics_day is null or new.location_id is distinct from old.location_id
     or new.created_at is distinct from old.created_at then
    new.analytics_day := analytics_day_of(new.business_id, new.location_id, new.created_at);
  end if;
  return new;
end $$;`);
    this.addSql(`create trigger analytics_submission_day before insert or update on submission for each row execute function analytics_submission_day();`);

    // A rebuild (set local analytics.rebuild = 'on') recomputes the business's rows itself. Writers take the business's
    // analytics lock shared; a rebuild takes it exclusively, so the two never interleave.
    this.addSql(`create function analytics_submission_change() returns trigger language plpgsql as $$
begin
  if current_setting('analytics.rebuild', true) = 'on' then return null; end if;
  if tg_op = 'UPDATE' and new.answers = old.answers and new.analytics_day is not distinct from old.analytics_day
     and new.survey_id is not distinct from old.survey_id and new.location_id is not distinct from old.location_id
     and new.channel is not distinct from old.channel and new.order_id is not distinct from old.order_id then
    return null;
  end if;
  perform pg_advisory_xact_lock_shared(hashtext('analytics:' || coalesce(new.business_id, old.business_id)));
  -- A row written before this feature (no day yet) has not been counted: nothing to remove.
  if tg_op <> 'INSERT' and old.analytics_day is not null then
    perform analytics_apply(old.business_id, old.analytics_day, old.survey_id, old.location_id, old.channel, old.order_id, old.answers, -1);
  end if;
  if tg_op <> 'DELETE' then
    perform analytics_apply(new.business_id, new.analytics_day, new.survey_id, new.location_id, new.channel, new.order_id, new.answers, 1);
  end if;
  return null;
end $$;`);
    this.addSql(`create trigger analytics_submission_change after insert or update or delete on submission for each row execute function analytics_submission_change();`);
  }

  override down(): void | Promise<void> {
    this.addSql(`drop trigger if exists analytics_submission_change on submission;`);
    this.addSql(`drop trigger if exists analytics_submission_day on submission;`);
    this.addSql(`drop function if exists analytics_submission_change(), analytics_submission_day(), analytics_apply(varchar, date, varchar, varchar, varchar, varchar, jsonb, int), analytics_day_of(varchar, varchar, timestamptz), analytics_hist_add(int[], int[]), analytics_hist(int[], int), analytics_ratings(jsonb);`);
    this.addSql(`drop table if exists "analytics_rollup" cascade;`);
    this.addSql(`drop table if exists "analytics_menu_rollup" cascade;`);

    this.addSql(`alter table "business" drop column "time_zone";`);

    this.addSql(`alter table "location" drop column "time_zone";`);

    this.addSql(`alter table "submission" drop column "analytics_day";`);
  }

}
