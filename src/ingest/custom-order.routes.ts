import type { EntityManager } from '@mikro-orm/postgresql';
import Router from '@koa/router';
import { isId } from '../shared/id.js';
import { Checks } from '../shared/validation.js';
import { customWebhookPath } from '../modules/integration/index.js';
import { readNewOrder, type OrderWriter, orderJson, orderPath } from '../modules/order/index.js';
import { unauthorized, type WebhookAuth } from './custom-order.auth.js';
import { bearerToken } from '../shared/bearer.js';
import type { FailureLimit, KeyedLimit } from '../http/rate-limit/rate-limits.js';
import { ordersIngested } from '../kit/metrics/metrics.js';

/**
 * `POST /webhooks/custom/:business` (interface 4.9), a door into the order module. The body middleware in front has
 * already refused non-JSON (415), over 1 MiB (413) and malformed JSON (400). Then: the secret (401; 429 for an
 * address with too many wrong ones), the order quota (429), the order-field rules every door shares (400
 * validation_failed, a detail per field), the order writer in ingest mode, and the answer
 * `200 {data: <Order with items>, url}` for a creation and a repeat alike.
 */
export function customOrderRoutes(auth: WebhookAuth, em: EntityManager, writer: OrderWriter, limits?: { orders: KeyedLimit; failures: FailureLimit }): Router {
  const router = new Router();
  router.post(customWebhookPath(':business'), async (ctx) => {
    const business = ctx.params.business;
    const secret = bearerToken(ctx.get('authorization') || undefined);
    // Same refusal as a wrong secret: nothing tells a caller which businesses exist.
    if (!isId('business', business)) throw unauthorized();
    // Failed secrets per business and address, checked before the secret is compared (while its row is read).
    const [account, admission] = await Promise.all([auth.account(business), limits?.failures.admit(business, ctx.ip)]);
    if (admission) ctx.set(admission.headers);
    let country: string | null, staffKey: string;
    try {
      ({ country, staffKey } = auth.verify(account, secret));
    } catch (err) {
      await limits?.failures.failed(business, ctx.ip);
      throw err;
    }
    if (limits) {
      await limits.failures.succeeded(admission);
      // Orders per business, charged once the secret is right: wrong secrets cannot spend a business's quota.
      const orders = await limits.orders.charge(business);
      const policies = [admission?.headers['RateLimit-Policy'], orders['RateLimit-Policy']].filter(Boolean);
      if (policies.length) ctx.set({ ...orders, 'RateLimit-Policy': policies.join(', ') });
    }
    const checks = new Checks();
    const fields = readNewOrder(checks, ctx.request.body ?? {}, 'webhook', country);
    checks.throwIfAny();
    // Feedback requests of matching flows are written in the order's own transaction (modules/flow).
    const { order, created, changed } = await writer.write(em, business, { staffKey }, fields, 'ingest');
    ordersIngested.inc({ result: created ? 'created' : changed ? 'updated' : 'unchanged' });
    const data = orderJson(order);
    ctx.status = 200;
    ctx.body = { data, url: orderPath(business, order.id) };
  });
  return router;
}
