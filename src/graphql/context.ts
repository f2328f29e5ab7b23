import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { createLoaders, type Loaders } from './loaders.js';

/** Per request: its own identity map (em.fork) and its own DataLoaders, so nothing is shared between callers. */
export interface GraphQLContext {
  em: EntityManager;
  loaders: Loaders;
  requestId: string;
  logger: Logger;
}

export function createContextFactory(rootEm: EntityManager, logger: Logger) {
  return (requestId: string): GraphQLContext => {
    const em = rootEm.fork();
    return { em, loaders: createLoaders(em), requestId, logger };
  };
}
