import { Entity, Index, ManyToOne, PrimaryKey } from '@mikro-orm/decorators/legacy';
import { Business } from '../business/index.js';
import type { SentimentLabel } from '../text/index.js';
import { Submission } from './submission.entity.js';

/**
 * Which themes, with which sentiment, a submission's stored analyses speak of (answer_analysis' `themes`, one row per
 * theme and sentiment however many answers say it): the feedback list's theme filter finds a business's submissions
 * of a theme through this key instead of reading every analysis' JSON. Written with the analyses they come from, in
 * the same statement; gone with the submission.
 */
@Entity({ tableName: 'answer_theme' })
@Index({ name: 'answer_theme_submission_idx', properties: ['submission'] })
export class AnswerTheme {
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade', primary: true }) business!: string;
  @PrimaryKey({ type: 'string', length: 30 }) theme!: string;
  @PrimaryKey({ type: 'string', length: 8 }) sentiment!: SentimentLabel;
  @ManyToOne(() => Submission, { mapToPk: true, deleteRule: 'cascade', primary: true }) submission!: string;
}
