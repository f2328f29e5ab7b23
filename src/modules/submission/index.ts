/** The submission module's door: what other modules and the doors use of it. Its other files are its own. */
export {
  RESUME_DAYS,
  answerStep,
  findDeviceResponse,
  guestDishes,
  linkTargets,
  openGuestSurvey,
  orderAnswered,
  resumeStep,
  visibleSteps,
} from './response.service.js';
export type { GuestSurvey, OrderDish, SurveyLink } from './response.service.js';
export { analyseExisting } from './submission-analysis.service.js';
export { SubmissionAnalysisTask } from './submission-analysis.task.js';
export { itemRatings } from './submission-answers.rules.js';
export type { AnsweredSurvey } from './submission-followers.model.js';
export { Submission } from './submission.entity.js';
export type { AnswerInput } from './submission.inputs.js';
export { OrderSubmissionsResolver, SubmissionResolver } from './submission.resolver.js';
export { presentSubmission } from './submission.service.js';
export { SubmissionType } from './submission.type.js';
