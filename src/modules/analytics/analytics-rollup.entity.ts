import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Business } from '../business/index.js';

/**
 * The moments of the ratings in one bucket, in every rollup: count, sum and sum of squares add up across buckets, so
 * means and standard deviations are exact over any range. Not an entity: MikroORM maps these columns into each rollup.
 */
abstract class RatingMoments {
  @Property({ type: 'integer' }) count!: number;
  @Property({ type: 'bigint' }) sum!: string;
  @Property({ type: 'bigint' }) sumSq!: string;
}

/**
 * Pre-aggregated ratings, written by the `submission` table's trigger (declared by Migration20261123175513, its
 * grains and slots by Migration20261124090000, the whole-location grains by Migration20261125150000) in the
 * transaction of each submission write, so they are exact and never stale; a metric's delete takes its ratings out
 * of the whole-location rows in its own transaction (analytics_forget_metric). One row per (business, grain, day in the location's time zone, metric or NPS step, location, survey,
 * channel): grain `day`, and grain `month` dated the first of the month, the sum of that month's days, for long
 * ranges; grains `lday` and `lmon` the same for one location across its surveys and channels, for subject `metrics`
 * (every existing metric) or `nps` (every NPS step). '' stands for "none" so the key has no NULLs (ON CONFLICT needs that on PostgreSQL before 15). `h0`..`h10`
 * count the values 0 to 10 and `histHigh[i]` the value 10 + i: histograms merge by addition, so medians, quartiles,
 * CSAT and NPS are exact over any set of buckets.
 */
@Entity({ tableName: 'analytics_rollup' })
export class AnalyticsRollup extends RatingMoments {
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade', primary: true }) business!: string;

  /** `day`, or `month` (then `day` is the month's first day); `lday` and `lmon` for the whole-location rows. */
  @PrimaryKey({ type: 'string', length: 5 }) grain!: 'day' | 'month' | 'lday' | 'lmon';
  @PrimaryKey({ type: 'date' }) day!: string;

  /** A metric id (`mtr_`), or the id of an `nps` step (`step_`); `metrics` or `nps` in the whole-location rows. */
  @PrimaryKey({ type: 'string', length: 40 }) subject!: string;
  @PrimaryKey({ type: 'string', length: 40 }) locationId!: string;
  @PrimaryKey({ type: 'string', length: 40 }) surveyId!: string;
  @PrimaryKey({ type: 'string', length: 20 }) channel!: string;

  /** The server or cashier of the submission's order (its analyticsStaff); '' for none, and in the whole-location rows. */
  @PrimaryKey({ type: 'string', length: 100, default: '' }) staff!: string;

  @Property({ type: 'integer' }) h0!: number;
  @Property({ type: 'integer' }) h1!: number;
  @Property({ type: 'integer' }) h2!: number;
  @Property({ type: 'integer' }) h3!: number;
  @Property({ type: 'integer' }) h4!: number;
  @Property({ type: 'integer' }) h5!: number;
  @Property({ type: 'integer' }) h6!: number;
  @Property({ type: 'integer' }) h7!: number;
  @Property({ type: 'integer' }) h8!: number;
  @Property({ type: 'integer' }) h9!: number;
  @Property({ type: 'integer' }) h10!: number;

  @Property({ columnType: 'int[]', type: 'unknown' }) histHigh!: number[];
}

/**
 * Ratings per menu item: metric ratings through the lines of the order the submission answers (subject: the metric
 * id), and the guest's own ratings of each dish on an `items` step (subject `items`, Migration20261127083000).
 * Maintained by the same trigger as AnalyticsRollup.
 */
@Entity({ tableName: 'analytics_menu_rollup' })
export class AnalyticsMenuRollup extends RatingMoments {
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade', primary: true }) business!: string;
  @PrimaryKey({ type: 'date' }) day!: string;
  @PrimaryKey({ type: 'string', length: 40 }) subject!: string;
  @PrimaryKey({ type: 'string', length: 40 }) menuItemId!: string;
}
