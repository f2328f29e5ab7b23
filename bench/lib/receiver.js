// A webhook receiver on 127.0.0.1 for the benches: answers 204 at once and hands each delivery's body (text) and
// request to `onDelivery`. Keeps connections alive as a real receiver does.
import http from 'node:http';
import { freePort } from './service.js';

export async function startReceiver(onDelivery) {
  const port = await freePort();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.writeHead(204).end();
      onDelivery(body, req);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}
