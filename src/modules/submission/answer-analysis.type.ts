import { Field, ID, ObjectType } from 'type-graphql';
import { Timestamp } from '../../kit/graphql/scalars.js';
import { TextAnalysisType } from '../text/index.js';

@ObjectType('AnswerAnalysis', { description: 'What the workers read in one text answer: its language, sentiment, themes and the menu’s dishes it names.' })
export class AnswerAnalysisType extends TextAnalysisType {
  @Field(() => ID, { description: 'The text step answered.' }) step!: string;
  @Field(() => Timestamp, { description: 'When it was read: milliseconds since the Unix epoch.' }) analysedAt!: Date;
}
