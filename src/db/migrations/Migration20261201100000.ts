import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 39: the submission trigger of Migration20261128120000, told by two expressions (no query) when an answer
 * changes nothing counted. A guest's answer grows a step at a time, and a step that adds a comment leaves every rated
 * part as it was (the ratings, the NPS values, the dishes' ratings): it compared them with four queries. And an answer
 * that rates no dish no longer calls analytics_items_apply (a statement writing nothing) when it is written.
 * "What can be rated" is a superset: every element holding ratings or dishes' ratings, or a number as its value; when
 * those are equal on both sides (and the answers are of one JSON type), so is every rating they count.
 */
const RATED = `'$[*] ? (exists(@.ratings) || exists(@.items) || @.value.type() == "number")'`;

const changeFunction = (quick: boolean) => `create or replace function analytics_submission_change() returns trigger language plpgsql as $$
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
    if new.answers = old.answers then return null; end if;${
      quick
        ? `
    if jsonb_typeof(new.answers) = jsonb_typeof(old.answers)
       and jsonb_path_query_array(new.answers, ${RATED}) = jsonb_path_query_array(old.answers, ${RATED}) then
      return null;
    end if;`
        : ''
    }
    select coalesce(array_agg(subject), '{}'), bool_or(o.v is not null), bool_or(n.v is not null) into v_subjects, v_before, v_after
      from (select subject, array_agg(value order by value) as v from analytics_ratings(old.answers) group by subject) o
      full join (select subject, array_agg(value order by value) as v from analytics_ratings(new.answers) group by subject) n using (subject)
     where o.v is distinct from n.v;
    v_rated := cardinality(v_subjects) > 0;
    v_items := (select array_agg(i.menu_item_id || '=' || i.value order by i.menu_item_id) from analytics_item_ratings(old.answers) i)
               is distinct from (select array_agg(i.menu_item_id || '=' || i.value order by i.menu_item_id) from analytics_item_ratings(new.answers) i);
    if not v_rated and not v_items then return null; end if;${
      quick
        ? `
  else
    -- Dishes are rated only under "items": answers without any rate none.
    v_items := (tg_op <> 'DELETE' and new.answers @? '$[*].items') or (tg_op <> 'INSERT' and old.answers @? '$[*].items');`
        : ''
    }
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

export class Migration20261201100000 extends Migration {
  override name = 'Migration20261201100000';

  override async up(): Promise<void> {
    this.addSql(changeFunction(true));
  }

  override async down(): Promise<void> {
    this.addSql(changeFunction(false));
  }
}
