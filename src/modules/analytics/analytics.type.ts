import { Field, Float, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Timestamp } from '../../kit/graphql/scalars.js';
import { GROUP_KEYS, INTERVALS } from './analytics.rules.js';
import { MENU_SORTS, MENU_SOURCES } from './analytics.service.js';

export const AnalyticsIntervalEnum = Object.fromEntries(INTERVALS.map((v) => [v, v])) as { [K in (typeof INTERVALS)[number]]: K };
registerEnumType(AnalyticsIntervalEnum, {
  name: 'AnalyticsInterval',
  description: 'Bucket size: calendar days, ISO weeks (from Monday) or months of the business time zone, or one bucket for the whole range.',
});
export const AnalyticsGroupByEnum = Object.fromEntries(GROUP_KEYS.map((v) => [v, v])) as { [K in (typeof GROUP_KEYS)[number]]: K };
registerEnumType(AnalyticsGroupByEnum, { name: 'AnalyticsGroupBy', description: '`metric` for analyticsMetrics, `step` for analyticsNps.' });
export const AnalyticsCompareEnum = { previous: 'previous' } as const;
registerEnumType(AnalyticsCompareEnum, {
  name: 'AnalyticsCompare',
  description: '`previous`: the same figures for the period of the same length just before.',
});
export const MenuItemSortEnum = Object.fromEntries(MENU_SORTS.map((v) => [v, v])) as { [K in (typeof MENU_SORTS)[number]]: K };
registerEnumType(MenuItemSortEnum, { name: 'AnalyticsMenuItemSort' });
export const MenuItemSourceEnum = Object.fromEntries(MENU_SOURCES.map((v) => [v, v])) as { [K in (typeof MENU_SOURCES)[number]]: K };
registerEnumType(MenuItemSourceEnum, {
  name: 'AnalyticsMenuItemSource',
  description:
    "`direct`: guests' own ratings of the dish on items steps (1 to 5; a thumbs-up 5, a thumbs-down 1); `order`: metric ratings of the submissions whose order had it.",
});
export const SortOrderEnum = { asc: 'asc', desc: 'desc' } as const;
registerEnumType(SortOrderEnum, { name: 'AnalyticsSortOrder' });

/** What the metric and NPS figures share: the keys a bucket can be grouped by (besides its metric or step) and its size. */
@ObjectType({ simpleResolvers: true })
abstract class AnalyticsBucketType {
  @Field(() => ID, { nullable: true }) location?: string | null;
  @Field(() => ID, { nullable: true }) survey?: string | null;
  @Field(() => String, { nullable: true }) channel?: string | null;
  @Field(() => String, { nullable: true, description: "When grouped by staff: the server or cashier of the submissions' orders (null: none)." }) staff?:
    | string
    | null;
  @Field(() => Timestamp) period!: number;
  @Field(() => Int) count!: number;
  @Field({ description: 'Grouped by location or staff: fewer answers than minCount (default 10), so not ranked and not to be compared. False otherwise.' })
  insufficient!: boolean;
  @Field(() => Int, {
    nullable: true,
    description:
      'Grouped by location or staff: 1 for the best mean (NPS: score) among the groups of the same period and other keys; null when insufficient or not compared.',
  })
  rank?: number | null;
}

@ObjectType('AnalyticsMetric', { simpleResolvers: true, description: 'Metric ratings of one bucket; the key fields are set for the requested grouping.' })
export class AnalyticsMetricType extends AnalyticsBucketType {
  @Field(() => ID, { nullable: true }) metric?: string | null;
  // Again for its description, which AnalyticsNps.period does not have.
  @Field(() => Timestamp, { description: 'Start of the bucket (its first day at midnight in the business time zone).' }) period!: number;
  @Field(() => Float, { nullable: true }) mean!: number | null;
  @Field(() => Float, { nullable: true, description: 'Sample standard deviation (null under two ratings).' }) stddev!: number | null;
  @Field(() => Int, { nullable: true }) median!: number | null;
  @Field(() => Int, { nullable: true }) p25!: number | null;
  @Field(() => Int, { nullable: true }) p75!: number | null;
  @Field(() => GraphQLJSONObject, { description: 'Rating value to count; a single metric shows its whole scale.' }) distribution!: Record<string, number>;
  @Field(() => Float, { nullable: true, description: 'Top-2-box: the share of ratings in the two highest values of their scale.' }) csat!: number | null;
  @Field(() => AnalyticsMetricType, { nullable: true }) previous?: AnalyticsMetricType | null;
}

@ObjectType('AnalyticsNps', { simpleResolvers: true, description: 'Answers to `nps` steps (0 to 10) of one bucket.' })
export class AnalyticsNpsType extends AnalyticsBucketType {
  @Field(() => ID, { nullable: true }) step?: string | null;
  @Field(() => Int, { description: 'Answers of 9 or 10.' }) promoters!: number;
  @Field(() => Int, { description: 'Answers of 7 or 8.' }) passives!: number;
  @Field(() => Int, { description: 'Answers of 0 to 6.' }) detractors!: number;
  @Field(() => Float, { nullable: true, description: '% promoters − % detractors, from −100 to 100.' }) score!: number | null;
  @Field(() => AnalyticsNpsType, { nullable: true }) previous?: AnalyticsNpsType | null;
}

@ObjectType('MoneyAmount', { simpleResolvers: true })
export class MoneyAmountType {
  @Field({ description: 'ISO 4217.' }) currency!: string;
  @Field(() => Float) amount!: number;
}

@ObjectType('AnalyticsRecovery', { simpleResolvers: true, description: 'Cases of unhappy guests per bucket of the day they opened.' })
export class AnalyticsRecoveryType {
  @Field(() => Timestamp) period!: number;
  @Field(() => ID, { nullable: true, description: "When grouped by location: the case's location (null: none)." }) location?: string | null;
  @Field(() => Int) opened!: number;
  @Field(() => Int, { description: 'Cases the restaurant has answered.' }) replied!: number;
  @Field(() => Int, { description: 'Answered within an hour of opening.' }) repliedWithinHour!: number;
  @Field(() => Float, { nullable: true, description: 'Median minutes from opening to the first reply, of the answered cases.' }) medianFirstReplyMinutes!:
    | number
    | null;
  @Field(() => Int, { description: 'Cases resolved (at some point).' }) resolved!: number;
  @Field(() => Int, { description: 'Cases whose guest came back.' }) recovered!: number;
  @Field(() => Float, { nullable: true, description: 'recovered / opened.' }) recoveryRate!: number | null;
  @Field(() => [MoneyAmountType], { description: 'The totals of the orders that recovered them, per currency.' }) recoveredRevenue!: MoneyAmountType[];
}

@ObjectType('AnalyticsTheme', {
  simpleResolvers: true,
  description: 'Text answers the workers read as speaking of a theme in a bucket, by the sentiment of the theme in each.',
})
export class AnalyticsThemeType {
  @Field(() => Timestamp) period!: number;
  @Field({ description: "A built-in theme (food, speed, staff, cleanliness, price, ambience, accuracy, delivery) or one of the business's own." })
  theme!: string;
  @Field(() => ID, { nullable: true, description: "When grouped by location: the submission's (null: none)." }) location?: string | null;
  @Field(() => ID, { nullable: true, description: "When grouped by survey: the submission's (null: none)." }) survey?: string | null;
  @Field(() => String, { nullable: true, description: "When grouped by channel: the submission's (null: none)." }) channel?: string | null;
  @Field(() => ID, { nullable: true, description: 'When grouped by dish: a menu item the answers name (an answer naming two counts for each).' }) dish?:
    | string
    | null;
  @Field(() => String, { nullable: true, description: "When grouped by dish: the menu item's name." }) dishName?: string | null;
  @Field(() => Int) positive!: number;
  @Field(() => Int) neutral!: number;
  @Field(() => Int) negative!: number;
  @Field(() => Int, { description: 'positive + neutral + negative.' }) total!: number;
}

@ObjectType('AnalyticsThemeWord', { simpleResolvers: true, description: 'A word guests use for a theme with a sentiment, and how many answers used it.' })
export class AnalyticsThemeWordType {
  @Field() theme!: string;
  @Field({ description: 'positive, neutral or negative: the sentiment of the theme in the answers counted.' }) sentiment!: string;
  @Field({ description: 'Lower case, as written (the words that name the theme or judge it).' }) word!: string;
  @Field(() => Int, { description: 'Answers that used it for this theme and sentiment.' }) count!: number;
}

@ObjectType('AnalyticsResponseRate', { simpleResolvers: true })
export class AnalyticsResponseRateType {
  @Field(() => Timestamp) period!: number;
  @Field(() => ID, { nullable: true, description: 'When grouped by location: the location the orders name (null: none known).' }) location?: string | null;
  @Field(() => String, { nullable: true, description: "When grouped by channel: the orders' channel." }) channel?: string | null;
  @Field(() => Int) orders!: number;
  @Field(() => Int, { description: 'Orders with at least one completed submission.' }) answered!: number;
  @Field(() => Float, { nullable: true }) rate!: number | null;
}

@ObjectType('AnalyticsMenuItem', {
  simpleResolvers: true,
  description: "A dish's ratings: the guests' own (`direct`) or the metric ratings of the submissions whose order had it (`order`).",
})
export class AnalyticsMenuItemType {
  @Field(() => ID) menuItem!: string;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => MenuItemSourceEnum) source!: 'direct' | 'order';
  @Field(() => ID, { nullable: true }) metric!: string | null;
  @Field(() => Int) count!: number;
  @Field(() => Float) mean!: number;
  @Field(() => Float, { description: 'Mean shrunk toward the overall mean (of its source) by 10 ratings: (sum + 10 × overall) / (count + 10).' })
  shrunkMean!: number;
}

@ObjectType('AnalyticsFunnelStep', { simpleResolvers: true })
export class AnalyticsFunnelStepType {
  @Field(() => ID) step!: string;
  @Field(() => Int) position!: number;
  @Field() type!: string;
  @Field(() => Int, { description: 'Responses that got to this step.' }) reached!: number;
  @Field(() => Int) answered!: number;
  @Field(() => Int, { description: 'Partial responses that stopped at this step.' }) droppedOff!: number;
  @Field(() => Float, {
    nullable: true,
    description:
      'Median seconds guests spent on the step before answering it, on the survey page (from the first view or the previous answer; stays over an hour are not counted). Null when none was timed.',
  })
  medianSeconds!: number | null;
}
