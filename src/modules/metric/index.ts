/** The metric module's door: what other modules and the doors use of it. Its other files are its own. */
export { Metric } from './metric.entity.js';
export { MetricResolver } from './metric.resolver.js';
export { createMetric, presentMetric } from './metric.service.js';
export { MetricType } from './metric.type.js';
