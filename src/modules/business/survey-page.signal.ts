import { announceWritesOf } from '../../kit/signals/signals.js';

/**
 * What a survey page shows comes from five tables (the business's brand, the survey, its steps, their metrics, the
 * business's locations); every write to any of them tells this channel once it commits (kit/signals/signals.ts), and
 * every process's page memo (notified.memo.ts) forgets what it holds. Writes there are rare next to page views, so
 * one signal for all of them is enough. In the business module, the lowest of them (survey imports location and
 * metric, and all of them business).
 */
export const SURVEY_PAGES_CHANNEL = 'survey_pages';

announceWritesOf(SURVEY_PAGES_CHANNEL, ['business', 'location', 'metric', 'survey', 'survey_step']);
