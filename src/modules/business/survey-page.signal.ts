import { notifyingTrigger } from '../../kit/signals/notify.trigger.js';

/**
 * What a survey page shows comes from four tables (the survey, its steps, their metrics, the business's locations);
 * a write to any of them notifies this channel at commit, and every process's page memo (notified.memo.ts)
 * forgets what it holds. Writes there are rare next to page views, so one signal for all of them is enough. In the
 * business module, the lowest of the four (survey imports location and metric, and all of them business).
 */
export const SURVEY_PAGES_CHANNEL = 'survey_pages';

export const surveyPagesTrigger = notifyingTrigger('survey_pages_changed', SURVEY_PAGES_CHANNEL);
