/**
 * A token bucket per key (per webhook): `ratePerSecond` tokens a second, a burst of one second's worth. Per
 * process: with N processes a webhook may get up to N times the rate.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly ratePerSecond: number) {}

  private bucket(key: string, now: number) {
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = { tokens: this.ratePerSecond, at: now }));
    b.tokens = Math.min(this.ratePerSecond, b.tokens + ((now - b.at) / 1000) * this.ratePerSecond);
    b.at = now;
    return b;
  }

  /** Keys with no token now: leave their work for later. */
  heldBack(now = Date.now()): string[] {
    const out: string[] = [];
    for (const key of this.buckets.keys()) if (this.bucket(key, now).tokens < 1) out.push(key);
    // Full buckets carry no information: forget them, so the map holds only webhooks that are busy.
    for (const [key, b] of this.buckets) if (b.tokens >= this.ratePerSecond) this.buckets.delete(key);
    return out;
  }

  /** Takes a token, waiting for one when the bucket is empty. */
  async take(key: string): Promise<void> {
    for (;;) {
      const b = this.bucket(key, Date.now());
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return;
      }
      await new Promise((r) => setTimeout(r, Math.ceil(((1 - b.tokens) / this.ratePerSecond) * 1000)));
    }
  }
}
