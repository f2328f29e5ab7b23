/**
 * What a test server received (HTTP requests, mails), kept in arrival order, with a way to wait for the one a test
 * expects: the receiving side of startReceiver and startMailBox.
 */
export interface Inbox<T> {
  readonly items: T[];
  /** Keeps `item` and hands it to every waiter it matches. */
  add(item: T): void;
  /** Resolves with the first item (already received or to come) that matches, or fails after `timeoutMs`. */
  waitFor(match?: (item: T) => boolean, timeoutMs?: number): Promise<T>;
}

/** `noun` names the items in the timeout's message ("no matching request within ..."). */
export function createInbox<T>(noun: string): Inbox<T> {
  const items: T[] = [];
  const waiters: Array<{ match: (item: T) => boolean; resolve: (item: T) => void }> = [];
  return {
    items,
    add(item) {
      items.push(item);
      for (const w of [...waiters]) {
        if (w.match(item)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(item);
        }
      }
    },
    waitFor(match = () => true, timeoutMs = 10_000) {
      const already = items.find(match);
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const waiter = { match, resolve: (item: T) => (clearTimeout(timer), resolve(item)) };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(waiter), 1);
          reject(new Error(`no matching ${noun} within ${timeoutMs} ms (${items.length} received)`));
        }, timeoutMs);
        waiters.push(waiter);
      });
    },
  };
}
