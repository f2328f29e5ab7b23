import type { Middleware } from 'koa';

/**
 * Graceful shutdown needs two things the HTTP server alone does not give: keep-alive clients must be told to go
 * (`Connection: close` on every response once draining), and the database must stay open until the last handler
 * has finished, even one whose socket the server already closed after its grace period.
 */
export class Drain {
  private inFlight = 0;
  private draining = false;
  private waiters: Array<() => void> = [];

  get isDraining(): boolean {
    return this.draining;
  }

  middleware(): Middleware {
    return async (ctx, next) => {
      this.inFlight++;
      try {
        await next();
      } finally {
        if (this.draining) ctx.set('Connection', 'close');
        if (--this.inFlight === 0) this.waiters.splice(0).forEach((wake) => wake());
      }
    };
  }

  start(): void {
    this.draining = true;
  }

  /** Resolves when no handler runs any more, or after `timeoutMs` (false then). */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.inFlight === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}
