/** The dev outbox module's door: what other layers use of it (its repository stays its own). */
export { keepMessage, newestMessages } from './dev-outbox.repo.js';
export { DevOutboxMessage } from './dev-outbox.entity.js';
