/**
 * A value loaded on first use and again once it is older than `ttlMs` (another process may have changed it), or when
 * asked to. Callers share one load in flight; a load that fails is forgotten, so the next call tries again.
 */
export class ReloadingCache<T> {
  private loading?: Promise<T>;
  private loadedAt = 0;
  private lastForced = 0;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly ttlMs: number,
    /** How often a forced reload (an unknown key id asked for) may run at most: made-up ids cost no more than that. */
    private readonly forceEveryMs = 1_000,
  ) {}

  get(): Promise<T> {
    if (!this.loading || Date.now() - this.loadedAt > this.ttlMs) this.reload();
    return this.loading!;
  }

  /** A fresh load, unless one was forced less than `forceEveryMs` ago: undefined then. */
  async forced(): Promise<T | undefined> {
    if (Date.now() - this.lastForced <= this.forceEveryMs) return undefined;
    this.lastForced = Date.now();
    this.reload();
    return this.loading;
  }

  reset(): void {
    this.loading = undefined;
  }

  private reload(): void {
    const loading = this.load();
    this.loading = loading;
    this.loadedAt = Date.now();
    loading.catch(() => {
      if (this.loading === loading) this.loading = undefined;
    });
  }
}
