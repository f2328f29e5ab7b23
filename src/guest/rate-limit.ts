/**
 * At most `limit` new responses per window from one address to one survey. Kept in memory: it is checked on the
 * guest's hot path, where a PostgreSQL row per address would add a write to every new response, and it is an abuse
 * brake rather than a contract; run N processes and the effective limit is N times it (say so in the README).
 */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    readonly limit = 10,
    readonly windowMs = 10 * 60_000,
    private readonly maxKeys = 100_000,
  ) {}

  /** Seconds to wait before another is allowed, or 0 (and the hit is counted). */
  take(key: string, now = Date.now()): number {
    const since = now - this.windowMs;
    const recent = (this.hits.get(key) ?? []).filter((t) => t > since);
    if (recent.length >= this.limit) {
      this.hits.set(key, recent);
      return Math.max(1, Math.ceil((recent[0] + this.windowMs - now) / 1000));
    }
    recent.push(now);
    this.hits.set(key, recent);
    if (this.hits.size > this.maxKeys) this.prune(since);
    return 0;
  }

  private prune(since: number) {
    for (const [key, times] of this.hits) if (times.at(-1)! <= since) this.hits.delete(key);
    // Still full of live keys (an attack from many addresses): forget the oldest rather than grow without bound.
    for (const key of this.hits.keys()) {
      if (this.hits.size <= this.maxKeys) break;
      this.hits.delete(key);
    }
  }
}
