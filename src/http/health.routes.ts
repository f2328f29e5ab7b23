import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';
import { pingDatabase } from '../kit/db/database.ping.js';

/**
 * /healthz: the process answers (liveness). /readyz: the database answers too, and we are not shutting down
 * (readiness): load balancers stop sending traffic before the listener closes.
 */
export function healthRoutes(orm: MikroORM, isDraining: () => boolean): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    if (isDraining()) {
      ctx.status = 503;
      ctx.body = { status: 'shutting_down', database: 'unknown' };
      return;
    }
    const database = await pingDatabase(orm.em);
    ctx.status = database ? 200 : 503;
    ctx.body = { status: database ? 'ready' : 'unavailable', database: database ? 'ok' : 'unreachable' };
  });
  return router;
}
