import { Field, Float, ID, ObjectType, registerEnumType } from 'type-graphql';
import type { SentimentLabel } from './text-analysis.model.js';

export const SentimentLabelEnum = { positive: 'positive', neutral: 'neutral', negative: 'negative' } as const satisfies Record<SentimentLabel, SentimentLabel>;
registerEnumType(SentimentLabelEnum, { name: 'SentimentLabel' });

@ObjectType('TextSentiment')
export class TextSentimentType {
  @Field(() => Float, { description: 'From -1 (all bad) to 1 (all good).' }) score!: number;
  @Field(() => SentimentLabelEnum) label!: SentimentLabel;
}

@ObjectType('TextTheme')
export class TextThemeType {
  @Field({ description: 'A built-in theme (food, speed, staff, cleanliness, price, ambience, accuracy, delivery) or the business’s own.' }) theme!: string;
  @Field(() => SentimentLabelEnum) sentiment!: SentimentLabel;
  @Field(() => [String], { description: 'The words that name or judge the theme, lower case, in the order written.' }) words!: string[];
}

@ObjectType('TextDish')
export class TextDishType {
  @Field({ description: 'The menu item’s name.' }) name!: string;
  @Field(() => ID, { description: 'The menu item’s id.' }) menuItem!: string;
  @Field(() => SentimentLabelEnum) sentiment!: SentimentLabel;
}

@ObjectType('TextAnalysis', { description: 'What one text says: its language, sentiment, themes and the menu’s dishes it names.' })
export class TextAnalysisType {
  @Field({ description: '`en`, `ur` (Urdu script), `ur-Latn` (Roman Urdu) or `mixed`.' }) language!: string;
  @Field(() => TextSentimentType) sentiment!: TextSentimentType;
  @Field(() => [TextThemeType]) themes!: TextThemeType[];
  @Field(() => [TextDishType]) dishes!: TextDishType[];
}
