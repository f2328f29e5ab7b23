/** The business module's door: what other modules and the doors use of it. Its other files are its own. */
export { logoPath } from './brand.rules.js';
export { readBrand } from './brand.service.js';
export type { GuestBrand } from './brand.service.js';
export { BusinessOwnedEntity, BusinessOwnedJob, NamedOwnedEntity } from './business-owned.entity.js';
export { Business } from './business.entity.js';
export { BusinessOwnedResolver, BusinessResolver, NestedCrudResolver, OwnedCrudResolver, loadBusiness, presentBusiness } from './business.resolver.js';
export { checkNewBusiness, findLogo, setLogo, updateBusiness } from './business.service.js';
export type { CheckedLogo, NewBusiness } from './business.service.js';
export { BusinessType } from './business.type.js';
export { DEFAULT_STAFF_KEY } from './staff-key.rules.js';
export { SURVEY_PAGES_CHANNEL } from './survey-page.signal.js';
