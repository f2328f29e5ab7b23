/** The analytics module's door: what other modules and the doors use of it. Its other files are its own. */
export { forgetMetricRatings, rebuildAnalytics } from './analytics-rebuild.service.js';
export { businessExists } from './analytics.repo.js';
export { AnalyticsResolver } from './analytics.resolver.js';
