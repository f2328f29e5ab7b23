/** The location module's door: what other modules and the doors use of it. Its other files are its own. */
export { Location } from './location.entity.js';
export { orderLocation, orderLocations, orderZone } from './location.repo.js';
export { LocationResolver } from './location.resolver.js';
export { createLocation, findLocation, findLocationByMetadata, orderTimeZone, presentLocation } from './location.service.js';
export { LocationType } from './location.type.js';
