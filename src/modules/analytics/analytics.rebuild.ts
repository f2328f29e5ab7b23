import type { EntityManager } from '@mikro-orm/postgresql';

const SLOTS = Array.from({ length: 11 }, (_, v) => `h${v}`).join(', ');

/** The business's analytics lock, which every submission trigger takes shared (Migration20261124090000). */
const lockExclusively = (tx: EntityManager, business: string) => tx.execute(`select pg_advisory_xact_lock(hashtext('analytics:' || ?))`, [business]);

/**
 * In the transaction that deletes a metric: its ratings leave the whole-location rollups, as the detailed rows' join
 * to `metric` leaves them out (Migration20261125150000). Exclusive, so no submission between its trigger's check of
 * the metric and its commit is missed or counted twice.
 */
export async function forgetMetricRatings(tx: EntityManager, business: string, metric: string) {
  await lockExclusively(tx, business);
  await tx.execute('select analytics_forget_metric(?, ?)', [business, metric]);
}

/**
 * Rebuilds a business's rollups from its submissions: for data written before the rollups existed, or after time
 * zones changed (each submission's day is recomputed from the current zones). One transaction per business, holding
 * that business's analytics lock exclusively: the submission trigger takes it shared, so writes of this business wait
 * for the rebuild to commit (then add themselves to the rebuilt rows) and the rebuild waits for writes in flight. Other
 * businesses are not held up. The trigger stands aside (analytics.rebuild) while the rebuild rewrites the days.
 */
export async function rebuildBusinessAnalytics(em: EntityManager, business: string) {
  return em.transactional(async (tx) => {
    await lockExclusively(tx, business);
    await tx.execute(`set local analytics.rebuild = 'on'`);
    const days = await tx.execute(
      `update submission set analytics_day = analytics_day_of(business_id, location_id, created_at)
        where business_id = ? and analytics_day is distinct from analytics_day_of(business_id, location_id, created_at)`,
      [business],
      'run',
    );
    await tx.execute('delete from analytics_rollup where business_id = ?', [business]);
    await tx.execute('delete from analytics_menu_rollup where business_id = ?', [business]);
    // The same rules as the trigger (analytics_grains, analytics_slots), over every submission of the business at once.
    const rollups = await tx.execute(
      `insert into analytics_rollup (business_id, grain, day, subject, location_id, survey_id, channel, count, sum, sum_sq, ${SLOTS}, hist_high)
       select a.business_id, a.grain, a.day, a.subject, a.location_id, a.survey_id, a.channel, s.*
         from (select s.business_id, g.grain, g.day, x.subject, coalesce(s.location_id, '') as location_id, coalesce(s.survey_id, '') as survey_id,
                      coalesce(s.channel, '') as channel, array_agg(x.value) as vals
                 from submission s cross join lateral analytics_ratings(s.answers) x cross join lateral analytics_grains(s.analytics_day) g
                where s.business_id = ?
                group by 1, 2, 3, 4, 5, 6, 7) a
         cross join lateral analytics_slots(a.vals, 1) s`,
      [business],
      'run',
    );
    // The whole-location rows (Migration20261125150000): every metric or NPS step of a location, across surveys and channels.
    const whole = await tx.execute(
      `insert into analytics_rollup (business_id, grain, day, subject, location_id, survey_id, channel, count, sum, sum_sq, ${SLOTS}, hist_high)
       select a.business_id, a.grain, a.day, a.kind, a.location_id, '', '', s.*
         from (select s.business_id, g.grain, g.day, x.kind, coalesce(s.location_id, '') as location_id, array_agg(x.value) as vals
                 from submission s cross join lateral analytics_whole_ratings(s.answers) x cross join lateral analytics_whole_grains(s.analytics_day) g
                where s.business_id = ?
                group by 1, 2, 3, 4, 5) a
         cross join lateral analytics_slots(a.vals, 1) s`,
      [business],
      'run',
    );
    const menu = await tx.execute(
      `insert into analytics_menu_rollup (business_id, day, subject, menu_item_id, count, sum, sum_sq)
       select s.business_id, s.analytics_day, x.subject, oi.menu_item_id, count(*), sum(x.value), sum(x.value * x.value)
         from submission s
         cross join lateral (select distinct menu_item_id from order_item where order_id = s.order_id and menu_item_id is not null) oi
         cross join lateral analytics_ratings(s.answers) x
        where s.business_id = ? and s.order_id is not null and x.subject like 'mtr\\_%'
        group by 1, 2, 3, 4`,
      [business],
      'run',
    );
    const affected = (r: unknown) => (r as { affectedRows?: number }).affectedRows ?? 0;
    return { business, daysRecomputed: affected(days), rollupRows: affected(rollups) + affected(whole), menuRollupRows: affected(menu) };
  });
}

/** Every business, or the one given, one after the other. */
export async function rebuildAnalytics(em: EntityManager, business?: string) {
  const ids = business ? [business] : (await em.execute<Array<{ id: string }>>('select id from business order by id')).map((r) => r.id);
  const results = [];
  for (const id of ids) results.push(await rebuildBusinessAnalytics(em.fork(), id));
  return results;
}
