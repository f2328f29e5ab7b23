import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/legacy';
import { Business } from '../business/index.js';
import type { DishFinding, SentimentLabel, TextLanguage, ThemeFinding } from '../text/index.js';
import { Submission } from './submission.entity.js';

/**
 * What the workers read in one text answer of a submission (issue 52, item 3): labels, a score and the words that
 * carry each theme, never the text again. One row per (submission, step), replaced by each analysis, gone with the
 * submission. Keyed by business first, as tenant tables are (docs/scaling.md); read by submission (its index).
 */
@Entity({ tableName: 'answer_analysis' })
@Index({ name: 'answer_analysis_submission_idx', properties: ['submission'] })
export class AnswerAnalysis {
  @ManyToOne(() => Business, { mapToPk: true, deleteRule: 'cascade', primary: true }) business!: string;
  @ManyToOne(() => Submission, { mapToPk: true, deleteRule: 'cascade', primary: true }) submission!: string;
  /** The text step answered (kept when the step is deleted, as the answer is). */
  @PrimaryKey({ type: 'string', length: 40 }) step!: string;
  @Property({ type: 'string', length: 8 }) language!: TextLanguage;
  @Property({ type: 'double' }) score!: number;
  @Property({ type: 'string', length: 8 }) label!: SentimentLabel;
  @Property({ type: 'json' }) themes!: ThemeFinding[];
  @Property({ type: 'json' }) dishes!: DishFinding[];
  @Property({ type: 'datetime', length: 3 }) analysedAt!: Date;
}
