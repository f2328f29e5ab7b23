import type { TimePartitioning } from '../../kit/db/time-partitions.js';

/** The event log ages out a week at a time, `retentionDays` (EVENT_RETENTION_DAYS) after its newest row was made. */
export const eventPartitioning = (retentionDays: number): TimePartitioning => ({ table: 'event', kind: 'event', retentionDays });
