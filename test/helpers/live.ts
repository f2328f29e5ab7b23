import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export interface LiveClient {
  client: Client;
  /** How the connection closed (code and reason), once it has. */
  closed: Promise<{ code: number; reason: string }>;
  /** Every `next` payload of the subscription started with `listen`, in order. */
  received: any[];
  /** Subscribes; the returned promise settles with the errors if the server refuses the subscription. */
  listen(query: string, variables?: Record<string, unknown>): Promise<readonly unknown[] | undefined>;
  /** Waits until `count` payloads have arrived (or fails after `ms`). */
  until(count: number, ms?: number): Promise<any[]>;
  dispose(): Promise<void>;
}

/** A graphql-ws client of `base` (http://...), authenticated as partners' dashboards are: the token in connection_init. */
export function liveClient(base: string, authorization?: string): LiveClient {
  let onClosed!: (e: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((r) => (onClosed = r));
  const client = createClient({
    url: `${base.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: authorization ? { authorization } : {},
    retryAttempts: 0,
    lazy: true,
    on: { closed: (e) => onClosed({ code: (e as { code: number }).code, reason: String((e as { reason: string }).reason) }) },
  });
  const received: any[] = [];
  return {
    client,
    closed,
    received,
    listen(query, variables = {}) {
      return new Promise((resolve) => {
        client.subscribe(
          { query, variables },
          {
            next: (value) => (value.errors ? resolve(value.errors) : received.push(value.data)),
            error: (err) => resolve(Array.isArray(err) ? err : [err]),
            complete: () => resolve(undefined),
          },
        );
      });
    },
    async until(count, ms = 10_000) {
      for (const started = Date.now(); received.length < count; await new Promise((r) => setTimeout(r, 20))) {
        if (Date.now() - started > ms) throw new Error(`${received.length} of ${count} events after ${ms} ms`);
      }
      return received;
    },
    dispose: () => client.dispose() as Promise<void>,
  };
}
