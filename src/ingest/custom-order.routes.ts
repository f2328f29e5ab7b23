import Router from '@koa/router';
import { AppError } from '../shared/errors.js';
import { isId } from '../shared/id.js';
import { bearerSecret, type CustomOrderIngestion } from './custom-order.service.js';
import { validateCustomOrder } from './custom-order.validation.js';
import type { OrderIngestedHooks } from './feedback-flows.js';

/**
 * `POST /webhooks/custom/:business` (spec 4.9). The body middleware in front has already refused non-JSON (415),
 * over 1 MiB (413) and malformed JSON (400). Then: the secret (401), the body (400 validation_failed with a detail per
 * field), the write, and the answer `200 {data: <Order with items>, url}` for a creation and a repeat alike.
 */
export function customOrderRoutes(ingestion: CustomOrderIngestion, hooks: OrderIngestedHooks): Router {
  const router = new Router();
  router.post('/webhooks/custom/:business', async (ctx) => {
    const business = ctx.params.business;
    const secret = bearerSecret(ctx.get('authorization') || undefined);
    if (!isId('business', business)) {
      // Same refusal as a wrong secret: nothing tells a caller which businesses exist.
      throw new AppError('unauthorized', 'A valid webhook secret is required: Authorization: Bearer <WEBHOOK_SECRET>', undefined, {
        'WWW-Authenticate': 'Bearer',
      });
    }
    const { country } = await ingestion.authenticate(business, secret);
    const input = validateCustomOrder(ctx.request.body ?? {}, country);
    const result = await ingestion.ingest(business, input);
    ctx.status = 200;
    ctx.body = { data: result.order, url: `/v2/businesses/${business}/orders/${result.order.id}` };
    // After the commit, outside the answer's path (see feedback-flows.ts).
    void hooks.run({ business, ...result });
  });
  return router;
}
