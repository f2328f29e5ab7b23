/** The guest-session module's door: what other modules and the doors use of it. Its other files are its own. */
export { GuestSessionKeys, rotateGuestSessionKey } from './guest-session-key.service.js';
export type { SessionKey } from './guest-session-key.service.js';
