import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Loaders } from './loaders.js';
import type { Principal } from '../auth/principal.js';
import { AppError } from '../shared/errors.js';
import { bearerToken } from '../shared/bearer.js';

/** Per request: its own identity map (em.fork) and its own DataLoaders, so nothing is shared between callers. */
export interface GraphQLContext {
  em: EntityManager;
  loaders: Loaders;
  requestId: string;
  logger: Logger;
  /** SURVEY_URL: the base of the survey links the API prints (Survey.url, surveyLink). */
  surveyUrl: string;
  /** Set when the request carried a valid access token (see src/graphql/auth-checker.ts). */
  auth?: Principal;
  /** Why a presented token was refused: raised by the auth checker when an operation needs a token. */
  authError?: AppError;
}

/** Verifies a bearer token into a Principal, or throws AppError 'unauthorized' (src/oauth/token.service.ts). */
export interface AccessTokenVerifier {
  verifyAccessToken(token: string): Promise<Principal>;
}

/**
 * `authorization` is the request's Authorization header. A valid bearer token sets `auth`; a missing one sets
 * nothing; a bad one sets `authError`, raised only when an operation needs a token (so public queries still work).
 */
export function createContextFactory(rootEm: EntityManager, logger: Logger, verifier: AccessTokenVerifier, surveyUrl: string) {
  return async (requestId: string, authorization?: string): Promise<GraphQLContext> => {
    const em = rootEm.fork();
    const context: GraphQLContext = { em, loaders: new Loaders(em), requestId, logger, surveyUrl };
    if (authorization) {
      const token = bearerToken(authorization);
      if (!token) {
        context.authError = new AppError('unauthorized', 'The Authorization header must be "Bearer <access token>"');
      } else {
        try {
          context.auth = await verifier.verifyAccessToken(token);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          context.authError = err;
        }
      }
    }
    return context;
  };
}
