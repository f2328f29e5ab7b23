import { Field, ID, ObjectType } from 'type-graphql';
import { Timestamp } from '../../kit/graphql/scalars.js';
import { SentimentLabelEnum, TextAnalysisType } from '../text/index.js';

@ObjectType('AnswerTheme', { description: 'A theme the workers read in one text answer, and its sentiment there.' })
export class AnswerThemeType {
  @Field(() => ID, { description: 'The text step answered.' }) step!: string;
  @Field({ description: 'A built-in theme or the business’s own.' }) theme!: string;
  @Field(() => SentimentLabelEnum) sentiment!: string;
}

@ObjectType('AnswerAnalysis', { description: 'What the workers read in one text answer: its language, sentiment, themes and the menu’s dishes it names.' })
export class AnswerAnalysisType extends TextAnalysisType {
  @Field(() => ID, { description: 'The text step answered.' }) step!: string;
  @Field(() => Timestamp, { description: 'When it was read: milliseconds since the Unix epoch.' }) analysedAt!: Date;
}
