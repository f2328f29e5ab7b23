import 'reflect-metadata';
import http from 'node:http';
import Koa from 'koa';
import { koaMiddleware } from '@as-integrations/koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { canSendMail, type Config } from './config.js';
import { requestContext } from './http/request-context.middleware.js';
import { trustedClientAddress } from './http/client-address.js';
import { errorHandler } from './http/error.middleware.js';
import { bodyMiddleware } from './http/body.middleware.js';
import { cors } from './http/cors.middleware.js';
import { healthRoutes } from './http/health.routes.js';
import { Drain } from './http/drain.middleware.js';
import { buildAppSchema } from './graphql/schema.js';
import { createApolloServer } from './graphql/apollo.js';
import { contextFailure } from './graphql/errors.js';
import { createContextFactory, type Services } from './kit/graphql/context.js';
import { compose } from './compose.js';
import { MemoryRecentWrites, ReadRouting, SharedRecentWrites } from './kit/replicas/read.routing.js';
import { createOAuth } from './oauth/oauth.module.js';
import { WebhookAuth } from './ingest/custom-order.auth.js';
import { customOrderRoutes } from './ingest/custom-order.routes.js';
import { smsInboundRoutes } from './ingest/sms-inbound.routes.js';
import { SmsInboundAuth } from './ingest/sms-inbound.auth.js';
import { restAdapter } from '../rest-adapter/rest.module.js';
import { qrRoutes } from '../rest-adapter/qr.routes.js';
import { logoRoutes } from '../rest-adapter/logo.routes.js';
import { guestRoutes } from './guest/guest.routes.js';
import { homeRoutes } from './http/home.routes.js';
import { graphiqlRoutes } from './http/graphiql.routes.js';
import { createRateLimits, type RateLimits } from './http/rate-limit/rate-limits.js';
import { httpMetrics, metricsRoute } from './http/metrics.routes.js';
import { feedbackLinkRoutes } from './guest/feedback-link.routes.js';
import { alertConsentRoutes } from './guest/alert-consent.routes.js';
import { portalRoutes } from './http/portal.routes.js';
import { devOutboxRoutes } from './http/dev-outbox.routes.js';
import { faviconRoutes } from './http/favicon.routes.js';
import { graphqlSubscriptions } from './graphql/subscriptions.js';
import { EventFeed } from './modules/event/index.js';

export interface App {
  httpServer: http.Server;
  listen(port: number, host?: string): Promise<number>;
  /** Stop accepting, finish in-flight requests and handlers, close the listener. The database is the caller's to close. */
  stop(): Promise<void>;
  /** Every door's rate limits (memory, or Redis with REDIS_URL). */
  limits: RateLimits;
}

/** `services`: the process's composition (src/compose.ts), shared with its workers; composed from `config` when absent. */
export async function createApp(deps: { orm: MikroORM; logger: Logger; config: Config; services?: Services }): Promise<App> {
  const { orm, logger } = deps;
  const services = deps.services ?? compose(deps.config);
  // proxy: X-Forwarded-Proto and -Host are read (PUBLIC_URL's scheme behind a TLS proxy); the client's address is
  // not taken from X-Forwarded-For here but by trustedClientAddress, with TRUST_PROXY_HOPS.
  const app = new Koa({ proxy: true });
  // The server exists before the middleware (Apollo's drain plugin needs it); its handler is attached after,
  // because app.callback() snapshots the middleware stack.
  const httpServer = http.createServer();
  const drain = new Drain();

  const limits = createRateLimits({ settings: deps.config.rateLimits, redisUrl: deps.config.redisUrl, keyPrefix: deps.config.redisKeyPrefix, logger });
  const schema = await buildAppSchema();
  const apollo = await createApolloServer(schema, httpServer, logger, limits.api);
  const oauth = await createOAuth({ orm, config: deps.config, logger, services, failures: limits.oauthFailures });
  // Queries' reads on the replicas (DATABASE_REPLICA_URLS); a client's writes seen by its next reads, on every process
  // when they share Redis.
  const reads = new ReadRouting(limits.redis ? new SharedRecentWrites(limits.redis, deps.config.redisKeyPrefix) : new MemoryRecentWrites());
  const contextFor = createContextFactory(orm.em, logger, oauth.tokens, deps.config.surveyUrl, services, reads);
  const webhookAuth = await WebhookAuth.create(orm, logger);
  const customOrders = customOrderRoutes(webhookAuth, orm.em, services.orders, {
    orders: limits.webhook,
    failures: limits.webhookFailures,
  });
  const feedbackLinks = feedbackLinkRoutes({ orm });
  const smsInbound = smsInboundRoutes({ orm, logger, auth: SmsInboundAuth.of(deps.config.feedback, deps.config.publicUrl, limits.webhookFailures) });
  const guest = guestRoutes({ orm, logger, publicUrl: deps.config.publicUrl, limiter: limits.guest, services, reads });
  const alertConsent = alertConsentRoutes({ orm, logger });

  app.use(trustedClientAddress(deps.config.trustProxyHops));
  app.use(requestContext(logger));
  app.use(httpMetrics());
  app.use(drain.middleware());
  app.use(cors());
  app.use(errorHandler(logger));
  app.use(oauth.errors);
  app.use(guest.pages);
  app.use(alertConsent.pages);
  // The logo's upload is an image, not JSON: routed before the body parser, which answers other types with a 415.
  const logos = logoRoutes({ orm, contextFor, limit: limits.api });
  app.use(logos.router.routes());
  // An alert recipient's answer reads no body (a mail client's one-click form among them): before the parser too.
  app.use(alertConsent.router.routes());
  app.use(bodyMiddleware({ formPaths: [/^\/oauth\//, /^\/survey\//, /^\/r\//, /^\/webhooks\/sms\//] }));
  // The two API doors come before the other routers, which answer none of their paths and would each match their
  // routes against every API request first. GraphQL ends the chain there (Apollo's Koa middleware calls next() once it
  // has answered).
  const graphql = koaMiddleware(apollo, {
    context: async ({ ctx }) => {
      return contextFor(ctx.state.requestId, ctx.get('authorization') || undefined, ctx.ip).catch(contextFailure);
    },
  });
  const answered = () => Promise.resolve();
  app.use((ctx, next) => (ctx.path === '/graphql' ? graphql(ctx, answered) : next()));
  // REST compatibility layer (/v1, /v2, /openapi.json, /docs): GraphQL documents run in-process with the same context.
  const qr = qrRoutes({ schema, contextFor, limit: limits.api });
  app.use(qr.router.routes());
  app.use(restAdapter({ schema, contextFor, limit: limits.api }));

  const health = healthRoutes(orm, () => drain.isDraining);
  app.use(health.routes()).use(health.allowedMethods());
  // The home page (/) and GraphiQL (/graphiql): exploring the service, also offline.
  app.use(homeRoutes({ signupOpen: deps.config.signup === 'open' }).routes());
  app.use(faviconRoutes().routes());
  app.use(graphiqlRoutes().routes());
  app.use(metricsRoute({ orm, token: deps.config.metricsToken }));
  app.use(oauth.router.routes()).use(oauth.router.allowedMethods());
  app.use(customOrders.routes()).use(customOrders.allowedMethods());
  app.use(guest.router.routes());
  app.use(feedbackLinks.routes());
  app.use(smsInbound.routes());
  // Before the portal's own pages, whose catch-all would answer its path.
  app.use(devOutboxRoutes({ orm, enabled: deps.config.feedback.outbox === 'dev' }).routes());
  app.use(portalRoutes({ publicUrl: deps.config.publicUrl }).routes());
  if (deps.config.feedback.outbox === 'dev')
    logger.warn(`MAIL_OUTBOX=dev: e-mail and texts are kept, not sent; read them at ${deps.config.publicUrl}/portal/dev/outbox`);
  else if (!canSendMail(deps.config.feedback))
    logger.warn(
      'no e-mail sender: sign-up confirmations, password resets, invitations, feedback requests and alerts cannot be sent, and the sign-up pages say so. Set SMTP_URL (or MAIL_OUTBOX=dev to try it locally); what was asked meanwhile is sent after a restart with it, while still valid',
    );

  httpServer.on('request', app.callback());
  // Subscriptions (graphql-ws) on the same path, fed by every process's events through LISTEN/NOTIFY.
  const liveEvents = new EventFeed(orm, logger);
  await liveEvents.start();
  const subscriptions = graphqlSubscriptions({
    httpServer,
    schema,
    contextFor,
    verifier: oauth.tokens,
    events: liveEvents,
    logger,
    trustProxyHops: deps.config.trustProxyHops,
  });
  // Slow or idle clients must not hold a connection open for ever.
  httpServer.headersTimeout = 30_000;
  httpServer.requestTimeout = 60_000;
  httpServer.keepAliveTimeout = 5_000;

  return {
    httpServer,
    limits,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        httpServer.once('error', reject);
        httpServer.listen(port, host, () => {
          httpServer.off('error', reject);
          const address = httpServer.address();
          resolve(typeof address === 'object' && address ? address.port : port);
        });
      }),
    async stop() {
      drain.start();
      // WebSocket connections first: an upgraded socket would otherwise hold the listener open for the whole drain.
      await subscriptions.stop();
      await liveEvents.stop();
      await apollo.stop(); // closes the listener and the connections (idle at once, busy after up to 10 s)
      if (!(await drain.settled(10_000))) logger.warn('handlers still running after the drain: closing anyway');
      oauth.stop();
      await limits.close();
      await guest.stop();
      await qr.stop();
      await logos.stop();
      await webhookAuth.stop();
    },
  };
}
