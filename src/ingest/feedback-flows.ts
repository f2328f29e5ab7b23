import type { Logger } from 'pino';
import type { OrderJson } from '../modules/order/order.presenter.js';
import type { WriteResult } from '../modules/order/order.writer.js';

/**
 * "Receiving an order triggers configured feedback flows" (spec 6.7). The flows come later; this is where they plug
 * in. A hook runs after the order's transaction has committed (so it sees the order in the database), once per
 * accepted webhook request: creations, PENDING -> ACCEPTED moves and unchanged repeats alike (see `created` and
 * `changed`). Hooks do not delay the webhook's answer, and a failing hook is logged, never turned into an error for
 * the sender: the order is stored whatever a flow does.
 */
export interface OrderIngested extends Omit<WriteResult, 'order'> {
  business: string;
  /** The order as the webhook answered it. */
  order: OrderJson;
}

export type OrderIngestedHook = (event: OrderIngested) => void | Promise<void>;

/** The hooks registered on the app (App.orderIngested). */
export class OrderIngestedHooks {
  private readonly hooks: OrderIngestedHook[] = [];

  constructor(private readonly logger: Logger) {}

  /** Registers a hook; returns a function that removes it. */
  add(hook: OrderIngestedHook): () => void {
    this.hooks.push(hook);
    return () => {
      const at = this.hooks.indexOf(hook);
      if (at >= 0) this.hooks.splice(at, 1);
    };
  }

  /** Runs every hook after the caller's commit, in the background; resolves when all have settled (for tests). */
  run(event: OrderIngested): Promise<void> {
    if (!this.hooks.length) return Promise.resolve();
    return Promise.allSettled(
      this.hooks.map(async (hook) => {
        try {
          await hook(event);
        } catch (err) {
          this.logger.error({ err, business: event.business, order: event.order.id }, 'order-ingested hook failed');
        }
      }),
    ).then(() => undefined);
  }
}
