import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Loaders } from './loaders.js';
import type { ReadRouting } from '../replicas/read.routing.js';
import type { Principal } from '../../auth/principal.js';
import { AppError } from '../../shared/errors.js';
import { bearerToken } from '../../shared/bearer.js';

/**
 * What the composition root (src/compose.ts) builds once per process from the configuration and every request,
 * worker and command shares: each module's services with what they depend on (the order writer with its followers,
 * the sending budgets, …). Declared empty here and filled there (declaration merging), so kit names no module.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging in src/compose.ts
export interface Services {}

/** What a write needs beyond its database: who asks (absent: the operator's CLI) and the process's services. */
export interface WriteContext {
  auth?: Principal;
  services: Services;
}

/** Per request: its own identity map (em.fork) and its own DataLoaders, so nothing is shared between callers. */
export interface GraphQLContext extends WriteContext {
  em: EntityManager;
  loaders: Loaders;
  requestId: string;
  logger: Logger;
  /** SURVEY_URL: the base of the survey links the API prints (Survey.url, surveyLink). */
  surveyUrl: string;
  /** Set when the request carried a valid access token (see src/graphql/auth-checker.ts). */
  auth?: Principal;
  services: Services;
  /** Why a presented token was refused: raised by the auth checker when an operation needs a token. */
  authError?: AppError;
  /** The caller's address (ctx.ip, as src/http/client-address.ts derives it): the rate limit's key for calls without a valid token. */
  clientAddress?: string;
  /** On a subscription's connection (src/graphql/subscriptions.ts): the live events of every process. */
  liveEvents?: LiveEvents;
  /** Where the operation's reads go (routeReads); absent, everything runs on the primary. */
  reads?: ReadRouting;
}

/** The client whose writes its own reads must see: the token's (user, business, credential), else its address. */
function clientKey(context: GraphQLContext): string | undefined {
  const { auth, clientAddress } = context;
  if (auth) return `${auth.credentialId}|${auth.businessId}|${auth.userId}`;
  return clientAddress ? `address|${clientAddress}` : undefined;
}

/**
 * Called by each door once the operation's type is known (Apollo's didResolveOperation, the REST adapter before it
 * runs a route): a query reads where lag is tolerated (a replica, unless the client wrote within the read-your-writes
 * window), a mutation stays on the primary, inside and outside its transactions. The one place a request's reads are
 * routed.
 */
export async function routeReads(context: GraphQLContext, operation: 'query' | 'mutation' | 'subscription'): Promise<void> {
  if (operation === 'query' && context.reads) await context.reads.lagTolerant(context.em, clientKey(context));
}

/** After a mutation has answered (its transactions committed): the client's next reads go to the primary. */
export async function noteWrite(context: GraphQLContext): Promise<void> {
  await context.reads?.wrote(context.em, clientKey(context));
}

/** Events of one business as they commit, whichever process wrote them (src/modules/event/event-feed.service.ts). */
export interface LiveEvents {
  /** Resolves once events of `business` committed from then on are sure to be heard. */
  subscribe(business: string, wants: (type: string) => boolean): Promise<AsyncIterableIterator<unknown>>;
}

/** Verifies a bearer token into a Principal, or throws AppError 'unauthorized' (src/modules/oauth/token.service.ts). */
export interface AccessTokenVerifier {
  verifyAccessToken(token: string): Promise<Principal>;
}

/**
 * `authorization` is the request's Authorization header; `clientAddress` the caller's (src/http/client-address.ts). A valid bearer token sets `auth`; a missing one sets
 * nothing; a bad one sets `authError`, raised only when an operation needs a token (so public queries still work).
 */
/** What each door calls to make a request's context (createContextFactory's answer). */
export type ContextFor = (requestId: string, authorization?: string, clientAddress?: string) => Promise<GraphQLContext>;

export function createContextFactory(
  rootEm: EntityManager,
  logger: Logger,
  verifier: AccessTokenVerifier,
  surveyUrl: string,
  services: Services,
  reads?: ReadRouting,
): ContextFor {
  return async (requestId, authorization, clientAddress) => {
    const em = rootEm.fork();
    const context: GraphQLContext = { em, loaders: new Loaders(em), requestId, logger, surveyUrl, services, reads, clientAddress };
    if (authorization) {
      const token = bearerToken(authorization);
      if (!token) {
        context.authError = new AppError('unauthorized', 'The Authorization header must be "Bearer <access token>"');
      } else {
        try {
          context.auth = await verifier.verifyAccessToken(token);
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          // RFC 6750 3.1: a token was presented and refused, so the challenge says invalid_token (and why).
          const challenge = `Bearer error="invalid_token", error_description="${err.message.replace(/["\\]/g, "'")}"`;
          context.authError = new AppError(err.code, err.message, err.details, { 'WWW-Authenticate': challenge, ...(err.headers ?? {}) });
        }
      }
    }
    return context;
  };
}
