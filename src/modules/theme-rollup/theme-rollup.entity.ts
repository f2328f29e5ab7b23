import { Entity, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Business } from '../business/index.js';

/**
 * Text answers read as speaking of a theme, by the theme's sentiment, per business, analytics day of the submission
 * (its `analyticsDay`), theme, location, survey, channel and dish (issue 52, item 4). Each (answer, theme) counts once
 * in the row of dish '' (the answer as a whole: totals read only those rows, so they never count an answer twice), and
 * once more for each menu item the answer names. '' stands for "none" so the key has no NULLs, as in the other
 * rollups. Kept by the statements the service sends in the transaction of each change (theme-rollup.service.ts), never
 * by a trigger: exact, and rebuilt from answer_analysis by `rebuild-analytics`.
 */
@Entity({ tableName: 'analytics_theme_rollup' })
export class AnalyticsThemeRollup {
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade', primary: true }) business!: string;
  @PrimaryKey({ type: 'date' }) day!: string;
  @PrimaryKey({ type: 'string', length: 30 }) theme!: string;
  @PrimaryKey({ type: 'string', length: 40 }) locationId!: string;
  @PrimaryKey({ type: 'string', length: 40 }) surveyId!: string;
  @PrimaryKey({ type: 'string', length: 20 }) channel!: string;
  /** A menu item the answer names, or '' for the answer as a whole. */
  @PrimaryKey({ type: 'string', length: 40 }) menuItemId!: string;
  @Property({ type: 'integer' }) positive!: number;
  @Property({ type: 'integer' }) neutral!: number;
  @Property({ type: 'integer' }) negative!: number;
}

/**
 * The words that carry a theme (answer_analysis' `themes[].words`, lower case as written), counted once per answer
 * and theme, per business, day, theme, sentiment, location and survey: "the words guests use most" read from here,
 * exact and bounded by the words themselves rather than by the answers. Kept with AnalyticsThemeRollup.
 */
@Entity({ tableName: 'analytics_theme_word_rollup' })
export class AnalyticsThemeWordRollup {
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade', primary: true }) business!: string;
  @PrimaryKey({ type: 'date' }) day!: string;
  @PrimaryKey({ type: 'string', length: 30 }) theme!: string;
  @PrimaryKey({ type: 'string', length: 8 }) sentiment!: string;
  @PrimaryKey({ type: 'string', length: 100 }) word!: string;
  @PrimaryKey({ type: 'string', length: 40 }) locationId!: string;
  @PrimaryKey({ type: 'string', length: 40 }) surveyId!: string;
  @Property({ type: 'integer' }) count!: number;
}
