/**
 * The idle side of a worker loop woken by notifications: a poll at least every `everyMs` is the safety net (work
 * falling due, notifications lost with a connection), and between polls the loop sleeps until the next one is due or
 * a notification (or a stop) wakes it.
 */
export class IdlePoll {
  private last = 0;
  private wakeSleeper: (() => void) | undefined;

  constructor(private readonly everyMs: number) {}

  /** Whether a poll is due; when it is, the next one is due `everyMs` from now. */
  due(): boolean {
    if (Date.now() - this.last < this.everyMs) return false;
    this.last = Date.now();
    return true;
  }

  /** Until the next poll is due, or wake(). */
  async sleep(): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, this.everyMs - (Date.now() - this.last)));
      this.wakeSleeper = () => (clearTimeout(timer), resolve());
    });
    this.wakeSleeper = undefined;
  }

  /** Ends the current sleep, if any. */
  wake(): void {
    this.wakeSleeper?.();
  }
}
