import http from 'node:http';
import { createInbox } from './inbox.js';

export interface ReceivedRequest {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: string;
}

export interface Receiver {
  /** http://127.0.0.1:<port> */
  url: string;
  readonly requests: ReceivedRequest[];
  /** Resolves with the first request (already received or to come) that matches, or fails after `timeoutMs`. */
  waitFor(match?: (r: ReceivedRequest) => boolean, timeoutMs?: number): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

/**
 * A real HTTP server on 127.0.0.1 that records every request: the landing place of OAuth redirects, and the
 * receiving end of outbound webhooks and SMS providers. `answer` decides the response (default: 200 and a small page).
 */
export async function startReceiver(answer: (r: ReceivedRequest) => Answer = () => ({}), options: { port?: number } = {}): Promise<Receiver> {
  const inbox = createInbox<ReceivedRequest>('request');
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const received: ReceivedRequest = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', `http://${req.headers.host}`),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      inbox.add(received);
      const out = answer(received);
      res.writeHead(out.status ?? 200, { 'content-type': 'text/html; charset=utf-8', ...out.headers });
      res.end(out.body ?? '<!doctype html><html lang="en"><title>Received</title><main><h1>Received</h1></main></html>');
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests: inbox.items,
    waitFor: inbox.waitFor,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
