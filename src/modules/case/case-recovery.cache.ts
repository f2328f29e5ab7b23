import type { EntityManager } from '@mikro-orm/postgresql';
import { mayRecover } from './case.repo.js';

/**
 * Whether each business may have a case or an offer waiting for its guest's next order: most businesses have none
 * most of the time, and a per-process note (read at most once per CACHE_MS) keeps their orders free of any statement.
 * This process's own new cases and offers mark their business at once; another process's are seen within CACHE_MS.
 */
const CACHE_MS = 2_000;
const waiting = new Map<string, { at: number; may: boolean }>();

/** A case opened or an offer made: this business's next orders are checked. */
export function recoveryMayWait(business: string) {
  waiting.set(business, { at: Date.now(), may: true });
}

export async function mayRecoverCached(tx: EntityManager, business: string, now: Date): Promise<boolean> {
  const hit = waiting.get(business);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.may;
  const may = await mayRecover(tx, business, now);
  waiting.set(business, { at: Date.now(), may });
  return may;
}
