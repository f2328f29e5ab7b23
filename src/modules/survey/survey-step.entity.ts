import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, Property } from '@mikro-orm/decorators/legacy';
import { newId } from '../../shared/id.js';
import { BusinessOwnedEntity } from '../business/index.js';
import { Survey } from './survey.entity.js';

export const STEP_TYPES = ['metrics', 'text', 'choice', 'nps', 'info', 'location', 'contact', 'items'] as const;
export type StepType = (typeof STEP_TYPES)[number];

// Tells the survey pages' caches when it changes, after commit (modules/business/survey-page.signal.ts).
@Entity({ tableName: 'survey_step' })
// Steps are always read per survey in position order; positions are kept dense by the service.
@Index({ name: 'survey_step_survey_position_idx', properties: ['survey', 'position'] })
@Index({ name: 'survey_step_business_idx', properties: ['business'] })
export class SurveyStep extends BusinessOwnedEntity {
  id = newId('surveyStep');

  @ManyToOne(() => Survey, { mapToPk: true, deleteRule: 'cascade' }) survey!: string;
  @Property({ type: 'integer' }) position!: number;
  @Enum({ items: () => STEP_TYPES }) type!: StepType;
  @Property({ type: 'boolean' }) required: Opt<boolean> = false;

  /** Title, body, choices...: shape depends on `type`. */
  @Property({ type: 'json' }) content: Opt<Record<string, unknown>> = {};
  @Property({ type: 'string', length: 50, nullable: true }) inputType?: string | null;
  @Property({ type: 'json', nullable: true }) validation?: Record<string, unknown> | null;

  /** Conditional logic (show/skip rules). */
  @Property({ type: 'json', nullable: true }) logic?: Record<string, unknown> | null;

  /** For `metrics` steps: the metric ids rated on this step, in display order. */
  @Property({ type: 'json' }) metricIds: Opt<string[]> = [];
}
