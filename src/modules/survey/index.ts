/** The survey module's door: what other modules and the doors use of it. Its other files are its own. */
export { LINK_CHANNELS, surveyUrl } from './survey-link.rules.js';
export { stepShown } from './survey-step-logic.rules.js';
export type { RuleLog } from './survey-step-logic.rules.js';
export { compiledPattern } from './survey-step-pattern.rules.js';
export { SurveyStep } from './survey-step.entity.js';
export { SurveyStepResolver } from './survey-step.resolver.js';
export { MAX_METRICS_PER_STEP, MAX_STEPS_PER_SURVEY, createStep } from './survey-step.service.js';
export { Survey } from './survey.entity.js';
export { SurveyResolver } from './survey.resolver.js';
export { createSurvey, findSurvey, presentSurvey } from './survey.service.js';
export { SurveyType } from './survey.type.js';
