/** The theme-rollup module's door: what other modules and the doors use of it. Its other files are its own. */
export { movingThemes, rebuildThemes, replacingThemes, withdrawThemes } from './theme-rollup.service.js';
