import { Migration } from '@mikro-orm/migrations';

/**
 * The submission trigger of Migration20261127083000, with each side of a changed answer counted only when it has a
 * rating of a changed subject. A guest's answer grows a step at a time: the step that adds the NPS changes the subject
 * `nps` only, which the old answers never held, so taking their share of it back out was a call of analytics_apply
 * (and its rollup update) that changed nothing, on every answer.
 */
const changeFunction = (counted: { before: string; after: string }) => `create or replace function analytics_submission_change() returns trigger language plpgsql as $$
declare
  v_subjects varchar[];
  v_rated boolean := true;
  v_items boolean := true;
  v_before boolean := true;
  v_after boolean := true;
begin
  if current_setting('analytics.rebuild', true) = 'on' then return null; end if;
  if tg_op = 'UPDATE' and old.analytics_day is not null and new.analytics_day is not distinct from old.analytics_day
     and new.survey_id is not distinct from old.survey_id and new.location_id is not distinct from old.location_id
     and new.channel is not distinct from old.channel and new.order_id is not distinct from old.order_id
     and new.analytics_staff is not distinct from old.analytics_staff then
    if new.answers = old.answers then return null; end if;
    select coalesce(array_agg(subject), '{}')${counted.before} into v_subjects${counted.after}
      from (select subject, array_agg(value order by value) as v from analytics_ratings(old.answers) group by subject) o
      full join (select subject, array_agg(value order by value) as v from analytics_ratings(new.answers) group by subject) n using (subject)
     where o.v is distinct from n.v;
    v_rated := cardinality(v_subjects) > 0;
    v_items := (select array_agg(i.menu_item_id || '=' || i.value order by i.menu_item_id) from analytics_item_ratings(old.answers) i)
               is distinct from (select array_agg(i.menu_item_id || '=' || i.value order by i.menu_item_id) from analytics_item_ratings(new.answers) i);
    if not v_rated and not v_items then return null; end if;
  end if;
  perform pg_advisory_xact_lock_shared(hashtext('analytics:' || coalesce(new.business_id, old.business_id)));
  -- A row written before the rollups (no day yet) has not been counted: nothing to remove.
  if tg_op <> 'INSERT' and old.analytics_day is not null then
    if v_rated and v_before then
      perform analytics_apply(old.business_id, old.analytics_day, old.survey_id, old.location_id, old.channel, old.analytics_staff, old.order_id, old.answers, -1, v_subjects);
    end if;
    if v_items then perform analytics_items_apply(old.business_id, old.analytics_day, old.answers, -1); end if;
  end if;
  if tg_op <> 'DELETE' then
    if v_rated and v_after then
      perform analytics_apply(new.business_id, new.analytics_day, new.survey_id, new.location_id, new.channel, new.analytics_staff, new.order_id, new.answers, 1, v_subjects);
    end if;
    if v_items then perform analytics_items_apply(new.business_id, new.analytics_day, new.answers, 1); end if;
  end if;
  return null;
end $$;`;

export class Migration20261128120000 extends Migration {
  override async up(): Promise<void> {
    // v_before / v_after: whether the old / new answers rate any changed subject (a subject absent on a side: null v).
    this.addSql(changeFunction({ before: ', bool_or(o.v is not null), bool_or(n.v is not null)', after: ', v_before, v_after' }));
  }

  override async down(): Promise<void> {
    this.addSql(changeFunction({ before: '', after: '' }));
  }
}
