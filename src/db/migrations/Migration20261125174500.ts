import { Migration } from '@mikro-orm/migrations';

/**
 * A submission write's cost in the database, cut where PostgreSQL planned the same SQL again on every write (issue
 * 13's write cost, issue 12's page steps). A SQL function the planner cannot inline (a scalar one with a sub-select
 * or a FROM) is planned afresh for every statement that calls it, and a trigger's call is a new statement each time;
 * a PL/pgSQL function keeps its plans for the session. So:
 * - analytics_whole_ratings says which whole-location row a rating counts in as one join the planner inlines into the
 *   trigger's cached plan (an NPS step's answers count in `nps`, an existing metric's ratings in `metrics`, a deleted
 *   metric's in none), and analytics_whole_kind, the scalar function it called per rating, goes: the rule's only
 *   place is now analytics_whole_ratings, read by the trigger (analytics_contributions) and the rebuild: the
 *   trigger's whole-location step is planned once per session with the rest.
 * - analytics_day_of (the BEFORE trigger's day of a submission) and submission_lowest_rating (the generated
 *   `lowest_rating` column) keep their statements and become PL/pgSQL, planned once per session.
 */
export class Migration20261125174500 extends Migration {

  override name = 'Migration20261125174500';

  override up(): void | Promise<void> {
    this.addSql(`create or replace function analytics_whole_ratings(p_answers jsonb, p_subjects varchar[] default null) returns table(kind varchar, value int) language sql stable as $$
  select case when r.subject like 'step\\_%' then 'nps'::varchar else 'metrics'::varchar end, r.value
    from analytics_ratings(p_answers) r
    left join metric m on r.subject like 'mtr\\_%' and m.id = r.subject
   where (p_subjects is null or r.subject = any(p_subjects)) and (r.subject like 'step\\_%' or m.id is not null)
$$;`);
    this.addSql(`drop function analytics_whole_kind(varchar);`);
    this.addSql(`create or replace function analytics_day_of(p_business varchar, p_location varchar, p_at timestamptz) returns date language plpgsql stable as $$
begin
  return (p_at at time zone coalesce((select time_zone from location where id = p_location),
                                     (select time_zone from business where id = p_business), 'UTC'))::date;
end $$;`);
    this.addSql(`create or replace function submission_lowest_rating(answers jsonb) returns double precision language plpgsql immutable parallel safe as $$
begin
  return (select min((r.value)::double precision)
            from jsonb_array_elements(case when jsonb_typeof(answers) = 'array' then answers else '[]'::jsonb end) a,
                 jsonb_each(case when jsonb_typeof(a -> 'ratings') = 'object' then a -> 'ratings' else '{}'::jsonb end) r
           where jsonb_typeof(r.value) = 'number');
end $$;`);
  }

  override down(): void | Promise<void> {
    this.addSql(`create function analytics_whole_kind(p_subject varchar) returns varchar language sql stable as $$
  select case when p_subject like 'step\\_%' then 'nps'
              when p_subject like 'mtr\\_%' and exists (select 1 from metric m where m.id = p_subject) then 'metrics' end
$$;`);
    this.addSql(`create or replace function analytics_whole_ratings(p_answers jsonb, p_subjects varchar[] default null) returns table(kind varchar, value int) language sql stable as $$
  select x.kind, x.value
    from (select analytics_whole_kind(r.subject) as kind, r.value from analytics_ratings(p_answers) r
           where p_subjects is null or r.subject = any(p_subjects)) x
   where x.kind is not null
$$;`);
    this.addSql(`create or replace function analytics_day_of(p_business varchar, p_location varchar, p_at timestamptz) returns date language sql stable as $$
  select (p_at at time zone coalesce((select time_zone from location where id = p_location),
                                      (select time_zone from business where id = p_business), 'UTC'))::date
$$;`);
    this.addSql(`create or replace function submission_lowest_rating(answers jsonb) returns double precision language sql immutable parallel safe as $$
  select min((r.value)::double precision)
    from jsonb_array_elements(case when jsonb_typeof(answers) = 'array' then answers else '[]'::jsonb end) a,
         jsonb_each(case when jsonb_typeof(a -> 'ratings') = 'object' then a -> 'ratings' else '{}'::jsonb end) r
   where jsonb_typeof(r.value) = 'number'
$$;`);
  }

}
