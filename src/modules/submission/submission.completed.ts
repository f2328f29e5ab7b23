import type { EntityManager } from '@mikro-orm/postgresql';
import type { Metric } from '../metric/metric.entity.js';
import type { SurveyStep } from '../survey/survey-step.entity.js';
import type { Submission } from './submission.entity.js';

/** The survey a completed submission answered, as the writer already holds it: its steps, and their metrics by id. */
export interface AnsweredSurvey {
  steps: readonly SurveyStep[];
  metrics: ReadonlyMap<string, Metric>;
  /** The linked order's dishes an items step may rate: menu item id -> name (absent: none read). */
  dishes?: ReadonlyMap<string, string>;
}

/**
 * What follows a submission's completion in its own transaction (the cases of unhappy guests): the submission module
 * calls it and knows no more of it, as the order module does with followOrderWrites; the step is given at start.
 */
export type SubmissionCompletedStep = (tx: EntityManager, submission: Submission, survey: AnsweredSurvey) => Promise<unknown>;

let afterCompletion: SubmissionCompletedStep = async () => {};

/** Called once at start, by the composition root: every completion (the API's create, the survey page's last step) runs `step`. */
export function followSubmissionCompletions(step: SubmissionCompletedStep) {
  afterCompletion = step;
}

/** Runs the step given at start for a submission just completed in `tx` (not yet flushed). */
export const submissionCompleted = (tx: EntityManager, submission: Submission, survey: AnsweredSurvey) => afterCompletion(tx, submission, survey);
