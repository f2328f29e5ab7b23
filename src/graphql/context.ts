import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { createLoaders, type Loaders } from './loaders.js';
import type { Principal } from '../auth/principal.js';
import type { AppError } from '../shared/errors.js';

/** Per request: its own identity map (em.fork) and its own DataLoaders, so nothing is shared between callers. */
export interface GraphQLContext {
  em: EntityManager;
  loaders: Loaders;
  requestId: string;
  logger: Logger;
  /** Set when the request carried a valid access token (see auth-checker.ts). */
  auth?: Principal;
  /** Why a presented token was refused: raised by the auth checker when an operation needs a token. */
  authError?: AppError;
}

export function createContextFactory(rootEm: EntityManager, logger: Logger) {
  return (requestId: string): GraphQLContext => {
    const em = rootEm.fork();
    return { em, loaders: createLoaders(em), requestId, logger };
  };
}
