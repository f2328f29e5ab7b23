/** The health module's door: what other modules and the doors use of it. Its other files are its own. */
export { HealthResolver } from './health.resolver.js';
