/** The event module's door: what other modules and the doors use of it. Its other files are its own. */
export { EventFeed } from './event-feed.service.js';
export { EVENT_COLUMNS, insertEvents } from './event.repo.js';
export { eventPartitioning } from './event-partitions.rules.js';
export { Event } from './event.entity.js';
export { EVENT_TYPES } from './event.inputs.js';
export { mayHear, missingToHear } from './event.policy.js';
export { EventResolver } from './event.resolver.js';
export { createRecorded, deleteRecorded, presentEvent, recordEvent, updateRecorded } from './event.service.js';
export type { RecordedResource } from './event.service.js';
export { WEBHOOK_WORK_CHANNEL, audienceLock, eventRecorded } from './event.signal.js';
export { EventType } from './event.type.js';
