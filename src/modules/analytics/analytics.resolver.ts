import { Arg, Args, Authorized, Ctx, ID, Int, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { AnalyticsExclusiveWindowArgs, AnalyticsMetricArgs, AnalyticsNpsArgs, type AnalyticsRatingArgs, AnalyticsWindowArgs } from './analytics.inputs.js';
import { DEFAULT_MIN_COUNT, type GroupKey, type Interval } from './analytics.rules.js';
import {
  DEFAULT_THEME_WORDS,
  funnel,
  MAX_THEME_WORDS,
  menuItemAnalytics,
  metricAnalytics,
  npsAnalytics,
  recoveryAnalytics,
  responseRate,
  themeAnalytics,
  themeWordAnalytics,
  type MenuSource,
} from './analytics.service.js';
import {
  AnalyticsFunnelStepType,
  AnalyticsGroupByEnum,
  AnalyticsIntervalEnum,
  AnalyticsMenuItemType,
  AnalyticsMetricType,
  AnalyticsNpsType,
  AnalyticsRecoveryType,
  AnalyticsResponseRateType,
  AnalyticsThemeType,
  AnalyticsThemeWordType,
  MenuItemSortEnum,
  MenuItemSourceEnum,
  SortOrderEnum,
} from './analytics.type.js';

const ms = (d: Date) => d.getTime();

/** Read-only figures from the rollups (scope analytics:read); every rule is in analytics.service and analytics.rules. */
@Resolver()
export class AnalyticsResolver {
  @Authorized('analytics:read')
  @Query(() => [AnalyticsMetricType], { description: 'Metric ratings per bucket (and per requested key), from the rollups.' })
  analyticsMetrics(
    @Args(() => AnalyticsMetricArgs) args: AnalyticsRatingArgs,
    @Arg('metric', () => ID, { nullable: true }) metric: string | null,
    @Ctx() { em }: GraphQLContext,
  ) {
    return metricAnalytics(em, args.business, { ...args, from: ms(args.from), to: ms(args.to), metric });
  }

  @Authorized('analytics:read')
  @Query(() => [AnalyticsNpsType], { description: 'Answers to NPS steps per bucket: promoters, passives, detractors and score.' })
  analyticsNps(
    @Args(() => AnalyticsNpsArgs) args: AnalyticsRatingArgs,
    @Arg('step', () => ID, { nullable: true }) step: string | null,
    @Ctx() { em }: GraphQLContext,
  ) {
    return npsAnalytics(em, args.business, { ...args, from: ms(args.from), to: ms(args.to), metric: step });
  }

  @Authorized('analytics:read')
  @Query(() => [AnalyticsResponseRateType], {
    description: "Orders per bucket, and those with a completed submission; by the order's location and channel when asked.",
  })
  analyticsResponseRate(
    @Args() { business, from, to }: AnalyticsWindowArgs,
    @Arg('interval', () => AnalyticsIntervalEnum, { defaultValue: 'day' }) interval: Interval,
    @Arg('groupBy', () => [AnalyticsGroupByEnum], { defaultValue: [], description: "location and/or channel (the order's)." }) groupBy: GroupKey[],
    @Arg('location', () => ID, { nullable: true, description: 'Only orders of this location (the one their externalLocationId names).' }) location:
      | string
      | null,
    @Arg('channel', () => String, { nullable: true, description: 'Only orders of this channel (WEBSITE, FOODPANDA...).' }) channel: string | null,
    @Ctx() { em }: GraphQLContext,
  ) {
    return responseRate(em, business, { from: ms(from), to: ms(to), interval, groupBy, location, channel });
  }

  @Authorized('analytics:read')
  @Query(() => [AnalyticsRecoveryType], {
    description: "Unhappy guests' cases per bucket of the day they opened: replies and how fast, resolutions, recoveries and the revenue they brought back.",
  })
  analyticsRecovery(
    @Args() { business, from, to }: AnalyticsWindowArgs,
    @Arg('interval', () => AnalyticsIntervalEnum, { defaultValue: 'day' }) interval: Interval,
    @Arg('groupBy', () => [AnalyticsGroupByEnum], { defaultValue: [], description: "location (the case's)." }) groupBy: GroupKey[],
    @Arg('location', () => ID, { nullable: true, description: 'Only cases of this location.' }) location: string | null,
    @Ctx() { em }: GraphQLContext,
  ) {
    return recoveryAnalytics(em, business, { from: ms(from), to: ms(to), interval, groupBy, location });
  }

  @Authorized('analytics:read')
  @Query(() => [AnalyticsThemeType], {
    description: 'Per theme and bucket, the text answers read as speaking of it, by sentiment (positive, neutral, negative), from the theme rollup.',
  })
  analyticsThemes(
    @Args() { business, from, to }: AnalyticsExclusiveWindowArgs,
    @Arg('interval', () => AnalyticsIntervalEnum, { defaultValue: 'day' }) interval: Interval,
    @Arg('groupBy', () => [AnalyticsGroupByEnum], {
      defaultValue: [],
      description: "location, survey and/or channel (the submission's), dish (a menu item the answer names).",
    })
    groupBy: GroupKey[],
    @Arg('location', () => ID, { nullable: true }) location: string | null,
    @Arg('survey', () => ID, { nullable: true }) survey: string | null,
    @Arg('channel', () => String, { nullable: true }) channel: string | null,
    @Arg('theme', () => String, { nullable: true, description: 'Only this theme.' }) theme: string | null,
    @Arg('dish', () => ID, { nullable: true, description: 'Only the answers that name this menu item.' }) dish: string | null,
    @Ctx() { em }: GraphQLContext,
  ) {
    return themeAnalytics(em, business, { from: ms(from), to: ms(to), interval, groupBy, location, survey, channel, theme, dish });
  }

  @Authorized('analytics:read')
  @Query(() => [AnalyticsThemeWordType], {
    description: 'Per theme and sentiment, the words guests use most for it (each counted once per answer), most used first: at most `limit` of each.',
  })
  analyticsThemeWords(
    @Args() { business, from, to }: AnalyticsExclusiveWindowArgs,
    @Arg('theme', () => String, { nullable: true, description: 'Only this theme.' }) theme: string | null,
    @Arg('sentiment', () => String, { nullable: true, description: 'Only this sentiment: positive, neutral or negative.' }) sentiment: string | null,
    @Arg('location', () => ID, { nullable: true }) location: string | null,
    @Arg('survey', () => ID, { nullable: true }) survey: string | null,
    @Arg('limit', () => Int, { defaultValue: DEFAULT_THEME_WORDS, description: `Words per theme and sentiment: 1 to ${MAX_THEME_WORDS}.` }) limit: number,
    @Ctx() { em }: GraphQLContext,
  ) {
    return themeWordAnalytics(em, business, { from: ms(from), to: ms(to), theme, sentiment, location, survey, limit });
  }

  @Authorized('analytics:read')
  @Query(() => [AnalyticsMenuItemType], {
    description: "Ratings per menu item: the guests' own (items steps, `direct`) and metric ratings through the orders behind the feedback (`order`).",
  })
  analyticsMenuItems(
    @Args() { business, from, to }: AnalyticsWindowArgs,
    @Arg('metric', () => ID, { nullable: true }) metric: string | null,
    @Arg('minCount', () => Int, { defaultValue: DEFAULT_MIN_COUNT, description: 'Dishes with fewer ratings are left out.' }) minCount: number,
    @Arg('sort', () => MenuItemSortEnum, { defaultValue: 'shrunkMean' }) sort: 'shrunkMean' | 'mean' | 'count',
    @Arg('order', () => SortOrderEnum, { defaultValue: 'desc' }) order: 'asc' | 'desc',
    @Arg('source', () => MenuItemSourceEnum, { nullable: true, description: 'Only this source; both when unset (with `metric`: `order` only).' })
    source: MenuSource | null,
    @Ctx() { em }: GraphQLContext,
  ) {
    return menuItemAnalytics(em, business, { from: ms(from), to: ms(to), metric, minCount, sort, order, source });
  }

  @Authorized('analytics:read')
  @Query(() => [AnalyticsFunnelStepType], { description: 'Per step of a survey: responses that reached it, answered it, stopped at it.' })
  analyticsFunnel(@Args() { business, from, to }: AnalyticsWindowArgs, @Arg('survey', () => ID) survey: string, @Ctx() { em }: GraphQLContext) {
    return funnel(em, business, { survey, from: ms(from), to: ms(to) });
  }
}
