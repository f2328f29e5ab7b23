import type { EntityManager } from '@mikro-orm/postgresql';
import { rebuildThemes } from '../theme-rollup/index.js';
import { businessIds, forgetMetric, lockAnalyticsExclusively, recomputeRollups } from './analytics.repo.js';

/**
 * In the transaction that deletes a metric: its ratings leave the whole-location rollups, as the detailed rows' join
 * to `metric` leaves them out (Migration20261125150000). Exclusive, so no submission between its trigger's check of
 * the metric and its commit is missed or counted twice.
 */
export async function forgetMetricRatings(tx: EntityManager, business: string, metric: string) {
  await lockAnalyticsExclusively(tx, business);
  await forgetMetric(tx, business, metric);
}

/**
 * Rebuilds a business's rollups from its submissions: for data written before the rollups existed, or after time
 * zones changed (each submission's day is recomputed from the current zones). One transaction per business, holding
 * that business's analytics lock exclusively: the submission trigger takes it shared, so writes of this business wait
 * for the rebuild to commit (then add themselves to the rebuilt rows) and the rebuild waits for writes in flight. Other
 * businesses are not held up.
 */
async function rebuildBusinessAnalytics(em: EntityManager, business: string) {
  return em.transactional(async (tx) => {
    await lockAnalyticsExclusively(tx, business);
    const rollups = await recomputeRollups(tx, business);
    // The theme rollups after the days: each answer counts on its submission's day as recomputed.
    return { business, ...rollups, ...(await rebuildThemes(tx, business)) };
  });
}

/** Every business, or the one given, one after the other. */
export async function rebuildAnalytics(em: EntityManager, business?: string) {
  const ids = business ? [business] : await businessIds(em);
  const results = [];
  for (const id of ids) results.push(await rebuildBusinessAnalytics(em.fork(), id));
  return results;
}
