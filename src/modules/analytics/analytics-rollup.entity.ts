import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Business } from '../business/business.entity.js';

/**
 * Pre-aggregated ratings, written only by the `submission` table's trigger (src/modules/analytics/analytics.sql.ts,
 * declared by the migration) in the transaction of each submission write, so they are exact and never stale.
 * One row per (business, day in the location's time zone, metric or NPS step, location, survey, channel); '' stands
 * for "none" so the key has no NULLs (ON CONFLICT needs that on PostgreSQL before 15). `hist[v]` counts the value v
 * (0 to 100): histograms merge by addition, so medians, quartiles, CSAT and NPS are exact over any set of buckets.
 */
@Entity({ tableName: 'analytics_rollup' })
export class AnalyticsRollup {
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade', primary: true })
  business!: string;

  @PrimaryKey({ type: 'date' })
  day!: string;

  /** A metric id (`mtr_`), or the id of an `nps` step (`step_`). */
  @PrimaryKey({ type: 'string', length: 40 })
  subject!: string;

  @PrimaryKey({ type: 'string', length: 40 })
  locationId!: string;

  @PrimaryKey({ type: 'string', length: 40 })
  surveyId!: string;

  @PrimaryKey({ type: 'string', length: 20 })
  channel!: string;

  @Property({ type: 'integer' })
  count!: number;

  @Property({ type: 'bigint' })
  sum!: string;

  @Property({ type: 'bigint' })
  sumSq!: string;

  @Property({ columnType: 'int[]', type: 'unknown' })
  hist!: number[];
}

/**
 * Metric ratings per menu item, through the lines of the order the submission answers: "which dishes get low scores".
 * Maintained by the same trigger as AnalyticsRollup.
 */
@Entity({ tableName: 'analytics_menu_rollup' })
export class AnalyticsMenuRollup {
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade', primary: true })
  business!: string;

  @PrimaryKey({ type: 'date' })
  day!: string;

  @PrimaryKey({ type: 'string', length: 40 })
  subject!: string;

  @PrimaryKey({ type: 'string', length: 40 })
  menuItemId!: string;

  @Property({ type: 'integer' })
  count!: number;

  @Property({ type: 'bigint' })
  sum!: string;

  @Property({ type: 'bigint' })
  sumSq!: string;
}
