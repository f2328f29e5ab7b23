import type { EntityManager } from '@mikro-orm/postgresql';
import { adminCommand, UsageError } from './command.js';
import { isId } from '../shared/id.js';
import { rebuildAnalytics, businessExists } from '../modules/analytics/index.js';

/** `--business`, when given: the id of a business that exists; else a usage error. */
export async function optionalBusiness(values: Record<string, unknown>, em: EntityManager): Promise<string | undefined> {
  const business = values.business as string | undefined;
  if (business !== undefined && !isId('business', business)) throw new UsageError(`--business: '${business}' is not a business id`);
  if (business && !(await businessExists(em, business))) throw new UsageError(`--business: no business '${business}'`);
  return business;
}

export const rebuildAnalyticsCommand = adminCommand({
  usage: 'rebuild-analytics [--business BUS_ID]',
  summary: 'Rebuild the analytics rollups from the submissions (safe while the service runs)',
  async run(values, em) {
    return { object: 'list', data: await rebuildAnalytics(em, await optionalBusiness(values, em)) };
  },
});
