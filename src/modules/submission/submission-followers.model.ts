import type { EntityManager } from '@mikro-orm/postgresql';
import type { Metric } from '../metric/index.js';
import type { SurveyStep } from '../survey/index.js';
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
 * calls it and knows no more of it, as the order module does with its writer's followers.
 */
type SubmissionCompletedStep = (tx: EntityManager, submission: Submission, survey: AnsweredSurvey) => Promise<unknown>;

/** Whether the step may write anything for this submission's completion; asked before it is written, outside any transaction. */
type SubmissionCompletedCheck = (em: EntityManager, submission: Submission, survey: AnsweredSurvey) => Promise<boolean>;

/** What follows every completion (the API's create, the survey page's last step): given by the composition root. */
export interface SubmissionFollowers {
  step: SubmissionCompletedStep;
  /** Asked first: the survey page's completion that nothing follows is written alone (response.service.ts). */
  check: SubmissionCompletedCheck;
}

declare module '../../kit/graphql/context.js' {
  interface Services {
    /** What follows a completed submission (the alert rules' cases). */
    completions: SubmissionFollowers;
  }
}
