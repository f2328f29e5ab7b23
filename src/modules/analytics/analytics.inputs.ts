import { ArgsType, Field, ID } from 'type-graphql';
import { Timestamp } from '../../kit/graphql/scalars.js';
import type { GroupKey, Interval } from './analytics.rules.js';
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

/** How the rating queries (metrics, NPS) bucket, group and filter their answers. */
@ArgsType()
export class AnalyticsRatingSliceArgs {
  @Field(() => AnalyticsIntervalEnum, { defaultValue: 'day' }) interval!: Interval;
  @Field(() => [AnalyticsGroupByEnum], { defaultValue: [] }) groupBy!: GroupKey[];
  @Field(() => ID, { nullable: true }) survey!: string | null;
  @Field(() => ID, { nullable: true }) location!: string | null;
  @Field(() => String, { nullable: true }) channel!: string | null;
  @Field(() => AnalyticsCompareEnum, { nullable: true }) compare!: AnalyticsQuery['compare'];
  @Field(() => String, { nullable: true, description: 'Only the submissions whose order names this server or cashier.' }) staff!: string | null;
}
