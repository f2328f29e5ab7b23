import type http from 'node:http';
import type { Duplex } from 'node:stream';
import { GraphQLError, Kind, parse, specifiedRules, validate, type ExecutionArgs, type GraphQLSchema } from 'graphql';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import type { AccessTokenVerifier, ContextFor, LiveEvents } from '../kit/graphql/context.js';
import type { Principal } from '../auth/principal.js';
import { AppError, ERRORS } from '../shared/errors.js';
import { BODY_LIMIT_BYTES } from '../http/body.middleware.js';
import { DEFAULT_LIMITS, documentShapeRule, queryDepthRule } from './limits.js';
import { formatError } from './errors.js';
import { clientAddress } from '../http/client-address.js';

/**
 * How often an open connection's token is verified again: a revoked or expired token's connection is closed, and the
 * member's role is read again (their subscriptions hear with what the role allows now).
 */
export const RECHECK_MS = 5_000;
const BAD_INPUT = { extensions: { code: ERRORS.bad_request.graphql, status: ERRORS.bad_request.status } };
/** Subscriptions one connection may hold at once. */
const MAX_SUBSCRIPTIONS = 20;

interface Connection {
  authorization: string;
  /** As of the last token check: its scopes narrowed to the member's role then. */
  principal: Principal;
  recheck?: NodeJS.Timeout;
  subscriptions: number;
}

/**
 * GraphQL subscriptions on /graphql over the `graphql-ws` protocol (queries and mutations stay on POST /graphql, where
 * the rate limit and cost accounting live). The access token comes in the connection_init payload
 * (`{"authorization": "Bearer ..."}`: browsers cannot set headers on a WebSocket) or the upgrade's Authorization
 * header; a connection without a valid one is closed 4403. The token is verified again every RECHECK_MS and the
 * connection closed 4401 when it has been revoked or has expired; otherwise its subscriptions go on with the scopes
 * that check found (a demoted member's narrower ones). Each subscription runs with the same context and
 * rules as a POST (tenant, scopes, depth and shape limits). With tokens rather than cookies, another site's page
 * cannot ride a guest's session, so the Origin needs no check.
 */
export function graphqlSubscriptions(deps: {
  httpServer: http.Server;
  schema: GraphQLSchema;
  contextFor: ContextFor;
  verifier: AccessTokenVerifier;
  events: LiveEvents;
  logger: Logger;
  /** TRUST_PROXY_HOPS: the client's address as every HTTP request's (src/http/client-address.ts). */
  trustProxyHops: number;
}) {
  const { schema, contextFor, verifier, events, logger } = deps;
  // Upgrades are handed over here rather than through ws's `server` option, which also re-emits the HTTP server's
  // errors: a port in use at start-up would print a WebSocket stack trace before the one line that says so.
  // (handleUpgrade still refuses other paths with a 400.)
  const wss = new WebSocketServer({ noServer: true, path: '/graphql', maxPayload: BODY_LIMIT_BYTES });
  deps.httpServer.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) =>
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request)),
  );
  const connections = new WeakMap<object, Connection>();
  const formatter = formatError(logger);
  // As Apollo hands errors to formatError on POST: unexpected ones marked INTERNAL_SERVER_ERROR, the thrown error unwrapped.
  const format = (e: GraphQLError) => {
    const json = e.toJSON();
    return formatter({ ...json, extensions: { code: 'INTERNAL_SERVER_ERROR', ...json.extensions } }, e.originalError ?? e);
  };
  const rules = [...specifiedRules, queryDepthRule(), documentShapeRule()];
  let sequence = 0;

  // biome-ignore lint/correctness/useHookAtTopLevel: graphql-ws's useServer is no React hook.
  const disposable = useServer<Record<string, unknown>, { connection: Connection }>(
    {
      schema,
      async onConnect(ctx) {
        const given = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization ?? ctx.extra.request.headers.authorization;
        const authorization = typeof given === 'string' ? given : undefined;
        const token = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
        const principal = token ? await verified(token) : undefined;
        if (!principal) return false;
        const connection: Connection = { authorization: authorization!, principal, subscriptions: 0 };
        connection.recheck = setInterval(() => {
          verified(token!).then(
            (now) => (now ? (connection.principal = now) : ctx.extra.socket.close(4401, 'Unauthorized: the access token was revoked or has expired')),
            // The database is away: the token cannot be checked now, and the connection is not punished for it.
            (err) => logger.warn({ err }, 'subscriptions: could not verify a token again'),
          );
        }, RECHECK_MS).unref();
        connections.set(ctx.extra.socket, connection);
        return true;
      },
      onClose(ctx) {
        clearInterval(connections.get(ctx.extra.socket)?.recheck);
      },
      onSubscribe(ctx, _id, payload) {
        const connection = connections.get(ctx.extra.socket)!;
        let document;
        try {
          document = parse(payload.query, { maxTokens: DEFAULT_LIMITS.maxTokens });
        } catch (err) {
          return [err instanceof GraphQLError ? err : new GraphQLError(String(err))];
        }
        const errors = validate(schema, document, rules);
        if (errors.length) return errors;
        const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
        const operation = payload.operationName ? operations.find((o) => o.name?.value === payload.operationName) : operations[0];
        if (operation?.operation !== 'subscription') {
          return [new GraphQLError('Only subscriptions run over a WebSocket: send queries and mutations with POST /graphql', BAD_INPUT)];
        }
        if (connection.subscriptions >= MAX_SUBSCRIPTIONS) {
          return [new GraphQLError(`At most ${MAX_SUBSCRIPTIONS} subscriptions per connection`, BAD_INPUT)];
        }
        connection.subscriptions++;
        return { schema, document, operationName: payload.operationName, variableValues: payload.variables } satisfies ExecutionArgs;
      },
      onComplete(ctx) {
        const connection = connections.get(ctx.extra.socket);
        if (connection) connection.subscriptions--;
      },
      async context(ctx) {
        const connection = connections.get(ctx.extra.socket)!;
        const context = await contextFor(`ws-${++sequence}`, connection.authorization, clientAddress(ctx.extra.request, deps.trustProxyHops));
        if (context.auth) {
          // The subscription's principal is the connection's, as each token check leaves it (event-feed.service.ts asks at each event).
          connection.principal = context.auth;
          Object.defineProperty(context, 'auth', { get: () => connection.principal, enumerable: true });
        }
        context.liveEvents = events;
        return context;
      },
      // The same error bodies as POST /graphql (extensions.code, status, details).
      onNext: (_ctx, _id, _payload, _args, result) => (result.errors ? { ...result, errors: result.errors.map(format) } : undefined),
      onError: (_ctx, _id, _payload, errors) => errors.map(format),
    },
    wss,
  );

  /** The token's principal now, or undefined when it is no longer valid. */
  async function verified(token: string): Promise<Principal | undefined> {
    try {
      return await verifier.verifyAccessToken(token);
    } catch (err) {
      if (err instanceof AppError) return undefined;
      throw err;
    }
  }

  return {
    /** Closes every connection (1001, going away) and the server. */
    async stop() {
      await disposable.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
