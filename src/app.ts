import 'reflect-metadata';
import http from 'node:http';
import Koa from 'koa';
import { koaMiddleware } from '@as-integrations/koa';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { requestContext } from './http/request-context.middleware.js';
import { errorHandler } from './http/error.middleware.js';
import { bodyMiddleware } from './http/body.middleware.js';
import { cors } from './http/cors.middleware.js';
import { healthRoutes } from './http/health.routes.js';
import { Drain } from './http/drain.middleware.js';
import { buildAppSchema } from './graphql/schema.js';
import { createApolloServer } from './graphql/apollo.js';
import { createContextFactory } from './kit/context.js';
import { createOAuth } from './oauth/oauth.module.js';
import { WebhookAuth } from './ingest/custom-order.auth.js';
import { OrderWriter } from './modules/order/order.writer.js';
import { customOrderRoutes } from './ingest/custom-order.routes.js';
import { OrderIngestedHooks } from './ingest/feedback-flows.js';
import { restAdapter } from '../rest-adapter/rest.module.js';
import { configureWebhookPolicy } from './modules/webhook/webhook.policy.js';
import { qrRoutes } from '../rest-adapter/qr.routes.js';
import { guestRoutes } from './guest/guest.routes.js';

export interface App {
  httpServer: http.Server;
  listen(port: number, host?: string): Promise<number>;
  /** Stop accepting, finish in-flight requests and handlers, close the listener. The database is the caller's to close. */
  stop(): Promise<void>;
  /** Run after each custom webhook order commits: where configured feedback flows plug in (src/ingest/feedback-flows.ts). */
  orderIngested: OrderIngestedHooks;
}

export async function createApp(deps: { orm: MikroORM; logger: Logger; config: Config }): Promise<App> {
  const { orm, logger } = deps;
  configureWebhookPolicy(deps.config.webhooks);
  const app = new Koa({ proxy: true });
  // The server exists before the middleware (Apollo's drain plugin needs it); its handler is attached after,
  // because app.callback() snapshots the middleware stack.
  const httpServer = http.createServer();
  const drain = new Drain();

  const schema = await buildAppSchema();
  const apollo = await createApolloServer(schema, httpServer, logger);
  const oauth = await createOAuth({ orm, config: deps.config, logger });
  const contextFor = createContextFactory(orm.em, logger, oauth.tokens, deps.config.surveyUrl);
  const orderIngested = new OrderIngestedHooks(logger);
  const customOrders = customOrderRoutes(await WebhookAuth.create(orm), await OrderWriter.of(orm.em), orderIngested);
  const guest = guestRoutes({ orm, logger, publicUrl: deps.config.publicUrl });

  app.use(requestContext(logger));
  app.use(drain.middleware());
  app.use(cors());
  app.use(errorHandler(logger));
  app.use(oauth.errors);
  app.use(guest.pages);
  app.use(bodyMiddleware({ formPaths: [/^\/oauth\//, /^\/survey\//] }));

  const health = healthRoutes(orm, () => drain.isDraining);
  app.use(health.routes()).use(health.allowedMethods());
  app.use(oauth.router.routes()).use(oauth.router.allowedMethods());
  app.use(customOrders.routes()).use(customOrders.allowedMethods());
  app.use(guest.router.routes());
  // REST compatibility layer (/v1, /v2, /openapi.json, /docs): GraphQL documents run in-process with the same context.
  const qr = qrRoutes({ schema, contextFor });
  app.use(qr.routes());
  app.use(restAdapter({ schema, contextFor }));

  const graphql = koaMiddleware(apollo, {
    context: async ({ ctx }) => contextFor(ctx.state.requestId, ctx.get('authorization') || undefined),
  });
  app.use((ctx, next) => (ctx.path === '/graphql' ? graphql(ctx, next) : next()));

  httpServer.on('request', app.callback());
  // Slow or idle clients must not hold a connection open for ever.
  httpServer.headersTimeout = 30_000;
  httpServer.requestTimeout = 60_000;
  httpServer.keepAliveTimeout = 5_000;

  return {
    httpServer,
    orderIngested,
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
      await apollo.stop(); // closes the listener and the connections (idle at once, busy after up to 10 s)
      if (!(await drain.settled(10_000))) logger.warn('handlers still running after the drain: closing anyway');
      oauth.stop();
    },
  };
}
