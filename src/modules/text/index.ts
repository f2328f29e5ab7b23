/** The text module's door: what other modules and the doors use of it. Its other files are its own. */
export { ILLNESS_WORDS } from './lexicon/illness.lexicon.js';
export { BUILT_IN_THEMES } from './lexicon/themes.lexicon.js';
export {
  TEXT_ANALYSIS_CHANNEL,
  claimJobs,
  deleteJob,
  hasTextAnswer,
  holdJob,
  nextTextAnalysisDue,
  queueJobsOf,
  releaseJobs,
  settleJob,
} from './text.repo.js';
export type { ClaimedJob } from './text.repo.js';
export { queueTextAnalysis } from './text-analysis-queue.repo.js';
export type { DishFinding, SentimentLabel, TextAnalysis, TextLanguage, ThemeFinding } from './text-analysis.model.js';
export { TextAnalysisResolver } from './text-analysis.resolver.js';
export { readerOf } from './text-analysis.service.js';
export { SentimentLabelEnum, TextAnalysisType } from './text-analysis.type.js';
export { ThemeSettingsResolver } from './theme-settings.resolver.js';
export { knownThemes } from './theme-settings.service.js';
