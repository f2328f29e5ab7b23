import { ArgsType, type ClassType, Field, ID, Int } from 'type-graphql';
import { Timestamp } from '../../kit/graphql/scalars.js';
import { DEFAULT_MIN_COUNT, type GroupKey, type Interval } from './analytics.rules.js';
import type { AnalyticsQuery } from './analytics.service.js';
import { AnalyticsCompareEnum, AnalyticsGroupByEnum, AnalyticsIntervalEnum } from './analytics.type.js';

/** The business and time range every analytics query reads. */
@ArgsType()
export class AnalyticsWindowArgs {
  @Field(() => ID) business!: string;
  @Field(() => Timestamp) from!: Date;
  @Field(() => Timestamp) to!: Date;
}

/** The same window for the queries whose published `to` says it is exclusive (the description is part of the schema). */
@ArgsType()
export class AnalyticsExclusiveWindowArgs extends AnalyticsWindowArgs {
  @Field(() => Timestamp, { description: 'Exclusive.' }) override to!: Date;
}

/** One rating query's arguments (metrics, NPS): its window, how it buckets, groups and filters, and `minCount` in its words. */
export interface AnalyticsRatingArgs extends AnalyticsWindowArgs {
  interval: Interval;
  groupBy: GroupKey[];
  survey: string | null;
  location: string | null;
  channel: string | null;
  compare: AnalyticsQuery['compare'];
  staff: string | null;
  minCount: number;
}

function ratingArgs(window: typeof AnalyticsWindowArgs, counted: 'ratings' | 'answers'): ClassType<AnalyticsRatingArgs> {
  @ArgsType()
  class RatingArgs extends window implements AnalyticsRatingArgs {
    @Field(() => AnalyticsIntervalEnum, { defaultValue: 'day' }) interval!: Interval;
    @Field(() => [AnalyticsGroupByEnum], { defaultValue: [] }) groupBy!: GroupKey[];
    @Field(() => ID, { nullable: true }) survey!: string | null;
    @Field(() => ID, { nullable: true }) location!: string | null;
    @Field(() => String, { nullable: true }) channel!: string | null;
    @Field(() => AnalyticsCompareEnum, { nullable: true }) compare!: AnalyticsQuery['compare'];
    @Field(() => String, { nullable: true, description: 'Only the submissions whose order names this server or cashier.' }) staff!: string | null;
    @Field(() => Int, {
      defaultValue: DEFAULT_MIN_COUNT,
      description: `Grouped by location or staff: groups with fewer ${counted} are \`insufficient\` and not ranked.`,
    })
    minCount!: number;
  }
  return RatingArgs;
}

export const AnalyticsMetricArgs = ratingArgs(AnalyticsExclusiveWindowArgs, 'ratings');
export const AnalyticsNpsArgs = ratingArgs(AnalyticsWindowArgs, 'answers');
