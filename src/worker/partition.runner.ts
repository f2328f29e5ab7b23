import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { maintainPartitions, type MaintenanceOutcome, type TimePartitioning } from '../kit/time-partitions.js';
import { eventPartitioning } from '../modules/event/event.partitions.js';
import { deliveryPartitioning } from '../modules/webhook/webhook-delivery.partitions.js';

const EVERY_MS = 3_600_000;

export interface PartitionMaintenance {
  stop(): Promise<void>;
}

/** The time-partitioned tables and their retention. */
export const partitionedTables = (config: Pick<Config, 'eventRetentionDays'>): TimePartitioning[] => [eventPartitioning(config.eventRetentionDays), deliveryPartitioning];

/**
 * Keeps the time-partitioned tables' partitions (kit/time-partitions.ts): at start, then hourly, in every process that
 * runs workers; the processes take turns on each table.
 */
export async function startPartitionMaintenance(deps: { orm: MikroORM; logger: Logger; config: Pick<Config, 'eventRetentionDays'> }): Promise<PartitionMaintenance> {
  const logger = deps.logger.child({ component: 'partitions' });
  const tables = partitionedTables(deps.config);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const run = async () => {
    try {
      report(logger, await maintainPartitions(deps.orm.em.fork(), tables));
    } catch (err) {
      logger.warn({ err }, 'partition maintenance failed; it runs again within the hour');
    }
    if (!stopped) timer = setTimeout(() => (running = run()), EVERY_MS);
  };
  running = run();
  await running;
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}

function report(logger: Logger, { created, dropped, kept }: MaintenanceOutcome) {
  if (created.length || dropped.length) logger.info({ created, dropped }, 'partitions created and dropped');
  for (const { name, reason } of kept) logger.info({ partition: name, reason }, 'partition past its retention kept');
}
