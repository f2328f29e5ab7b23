import Router from '@koa/router';
import type { MikroORM } from '@mikro-orm/postgresql';

const READY_TIMEOUT_MS = 2_000;

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
    const database = await pingDatabase(orm);
    ctx.status = database ? 200 : 503;
    ctx.body = { status: database ? 'ready' : 'unavailable', database: database ? 'ok' : 'unreachable' };
  });
  return router;
}

export async function pingDatabase(orm: MikroORM): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timeout')), READY_TIMEOUT_MS);
    });
    await Promise.race([orm.em.getConnection().execute('select 1'), timeout]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
