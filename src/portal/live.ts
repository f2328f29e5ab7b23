import { createClient, type Client } from 'graphql-ws';
import { useEffect, useRef } from 'preact/hooks';
import { accessToken, refreshNow } from './auth';
import { graphql, textOf } from './graphql';

const EventRecorded = graphql(`
  subscription EventRecorded($business: ID!, $types: [String!]) {
    eventRecorded(business: $business, types: $types) { id type }
  }
`);

let client: Client | undefined;
/** The service closed the socket for its token: 4401, revoked or expired since; 4403, refused when connecting. */
const TOKEN_REFUSED = [4401, 4403];
let tokenRefused = false;

/**
 * One WebSocket for the whole portal (graphql-ws on /graphql), opened when a screen first listens. Each connection
 * presents the session's current access token, so a reconnection after a refresh uses the new one; after a close for
 * its token, a refreshed one (or, when the session cannot be refreshed, the sign-in page: refreshNow).
 */
function liveClient(): Client {
  client ??= createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: async () => {
      const token = tokenRefused ? await refreshNow() : await accessToken();
      tokenRefused = false;
      return { authorization: `Bearer ${token}` };
    },
    on: { closed: (event) => void (tokenRefused ||= TOKEN_REFUSED.includes((event as CloseEvent | undefined)?.code ?? 0)) },
    lazy: true,
    retryAttempts: Infinity,
    shouldRetry: () => true,
  });
  return client;
}

/** Seconds before listening again after the service ended a subscription (a revoked or expired token, a restart). */
const RESUBSCRIBE_MS = 3_000;
/** A burst of events (an import, a busy lunch) reloads a screen once, this long after the first of them. */
const COALESCE_MS = 300;

/**
 * Calls `heard` whenever one of `types` (none: every type the session may hear) is recorded for the business, by any
 * process of the service, while the screen is open: lists refresh themselves without a reload. `accept` narrows the
 * events further by type. When the subscription ends with an error (events may have been missed meanwhile), it
 * listens again and calls `heard` once to catch up.
 */
export function useLiveEvents(business: string, types: string[], heard: () => void, accept?: (type: string) => boolean) {
  const latest = useRef(heard);
  latest.current = heard;
  const accepts = useRef(accept);
  accepts.current = accept;
  const key = types.join(',');
  useEffect(() => {
    let stop: (() => void) | undefined;
    let retry: ReturnType<typeof setTimeout> | undefined;
    let closed = false;
    let pending: ReturnType<typeof setTimeout> | undefined;
    const heardSoon = () => {
      pending ??= setTimeout(() => {
        pending = undefined;
        latest.current();
      }, COALESCE_MS);
    };
    const listen = () => {
      stop = liveClient().subscribe(
        { query: textOf(EventRecorded), variables: { business, types } },
        {
          next: (answer) => {
            const type = (answer.data as { eventRecorded?: { type: string } } | null | undefined)?.eventRecorded?.type;
            if (!accepts.current || (type && accepts.current(type))) heardSoon();
          },
          error: () => {
            if (closed) return;
            retry = setTimeout(() => {
              latest.current();
              listen();
            }, RESUBSCRIBE_MS);
          },
          complete: () => {},
        },
      );
    };
    listen();
    return () => {
      closed = true;
      clearTimeout(retry);
      clearTimeout(pending);
      stop?.();
    };
  }, [business, key]);
}
