import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { maintainPartitions, refreshStatistics, type MaintenanceOutcome, type TimePartitioning } from '../kit/db/time-partitions.js';
import { eventPartitioning } from '../modules/event/index.js';
import { deliveryPartitioning } from '../modules/webhook/index.js';

const EVERY_MS = 3_600_000;

export interface PartitionMaintenance {
  /** Rows written to the partitioned tables by this process's work: enough of them make it check their statistics. */
  wrote(rows: number): void;
  stop(): Promise<void>;
}

/**
 * Between two checks of the partitioned tables' statistics: at least this many rows written, and this long. A second,
 * not more: the row counts a check reads lag by up to a second, and a plan made while a partition was small scans it
 * whole until the next ANALYZE (a burst of deliveries left the claim scanning 10,000 of them for the 10 s after).
 */
const STATS_CHECK_ROWS = 2_000;
const STATS_CHECK_GAP_MS = 1_000;

/** The time-partitioned tables and their retention. */
export const partitionedTables = (config: Pick<Config, 'eventRetentionDays'>): TimePartitioning[] => [
  eventPartitioning(config.eventRetentionDays),
  deliveryPartitioning,
];

/**
 * Keeps the time-partitioned tables' partitions (kit/db/time-partitions.ts): at start, then hourly, in every process that
 * runs workers; the processes take turns on each table.
 */
export function startPartitionMaintenance(deps: { orm: MikroORM; logger: Logger; config: Pick<Config, 'eventRetentionDays'> }): PartitionMaintenance {
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
  // Not awaited: the partitions ahead exist already (two weeks of them), so the process need not wait for a run (and
  // its statistics refresh) to be ready; a stop waits for it.
  running = run();
  // Between the hourly runs, a table that grows fast (a fresh one, a busy hour) gets its statistics checked as it
  // grows: driven by this process's own writes, so an idle process sends nothing for it.
  let written = 0;
  let lastCheck = 0;
  let checking: Promise<void> | undefined;
  return {
    wrote(rows) {
      written += rows;
      if (stopped || checking || written < STATS_CHECK_ROWS || Date.now() - lastCheck < STATS_CHECK_GAP_MS) return;
      written = 0;
      lastCheck = Date.now();
      checking = refreshStatistics(deps.orm.em.fork(), tables)
        .then((tables) => void (tables.length && logger.info({ tables }, 'statistics of partitioned tables refreshed')))
        .catch((err) => logger.warn({ err }, 'could not refresh the statistics of partitioned tables'))
        .finally(() => (checking = undefined));
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await checking;
    },
  };
}

function report(logger: Logger, { created, dropped, analyzed, kept }: MaintenanceOutcome) {
  if (created.length || dropped.length) logger.info({ created, dropped }, 'partitions created and dropped');
  if (analyzed.length) logger.info({ tables: analyzed }, 'statistics of partitioned tables refreshed');
  for (const { name, reason } of kept) logger.info({ partition: name, reason }, 'partition past its retention kept');
}
