/**
 * Group commit: writes under the same key that arrive while that key's runs are all busy wait, and the next run takes
 * them together (one statement, one commit for all). A write that finds a run free goes at once, alone: nobody waits
 * for a batch to fill, so a quiet key pays no latency, and a busy one pays one statement's start-up and one commit
 * for many writes. Each caller gets its own write's outcome; when a run fails, every write of it gets the failure
 * (the caller decides what to do alone).
 */
export class WriteBatcher<I, O> {
  private readonly keys = new Map<string, { waiting: Waiting<I, O>[]; running: number }>();

  constructor(
    private readonly run: (key: string, items: I[]) => Promise<O[]>,
    private readonly limits: { runsPerKey: number; maxBatch: number },
  ) {}

  add(key: string, item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      let state = this.keys.get(key);
      if (!state) this.keys.set(key, (state = { waiting: [], running: 0 }));
      state.waiting.push({ item, resolve, reject });
      this.pump(key, state);
    });
  }

  private pump(key: string, state: { waiting: Waiting<I, O>[]; running: number }) {
    while (state.running < this.limits.runsPerKey && state.waiting.length > 0) {
      const batch = state.waiting.splice(0, this.limits.maxBatch);
      state.running += 1;
      this.run(
        key,
        batch.map((w) => w.item),
      )
        .then(
          (outcomes) => batch.forEach((w, i) => w.resolve(outcomes[i])),
          (err) => batch.forEach((w) => w.reject(err)),
        )
        .finally(() => {
          state.running -= 1;
          if (state.running === 0 && state.waiting.length === 0) this.keys.delete(key);
          else this.pump(key, state);
        });
    }
  }
}

interface Waiting<I, O> {
  item: I;
  resolve: (outcome: O) => void;
  reject: (err: unknown) => void;
}
