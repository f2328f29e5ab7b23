/**
 * The smallest sample a figure is judged on. Plain data, no import: the portal's browser bundle includes this file
 * (scripts/build-portal.js, PORTAL_SHARED_SOURCES), so the API and the portal draw the line at the same place.
 */

/**
 * Fewer ratings (answers, orders, cases) than this and a figure says little: the API leaves such a location, server
 * or dish out of its rankings (`minCount`'s default), and the portal shows the count first, "too few to judge yet".
 */
export const MIN_SAMPLE = 10;
