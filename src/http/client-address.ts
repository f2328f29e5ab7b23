import type { IncomingMessage } from 'node:http';
import type { Middleware } from 'koa';

/**
 * The client's address, the key of every per-address limit and the `address` of the access log. With `hops` = 0
 * (TRUST_PROXY_HOPS, the default) it is the socket's peer. Behind N proxies of ours it is the address the outermost
 * one saw: each proxy appends its peer to X-Forwarded-For, so that is the N-th entry from the right, and whatever a
 * client wrote further left is ignored. (Koa's `ctx.ips` with maxIpsCount N, `ctx.ip` its first: the same rule.)
 */
export function clientAddress(request: IncomingMessage, hops: number): string {
  const peer = plain(request.socket.remoteAddress ?? '');
  if (hops === 0) return peer;
  const header = request.headers['x-forwarded-for'];
  const entries = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  // Fewer entries than proxies: the request came through fewer of them, and the leftmost was still written by one.
  const entry = entries[Math.max(0, entries.length - hops)];
  return entry ? plain(entry) : peer;
}

/** An IPv4 client of a dual-stack listener shows as `::ffff:a.b.c.d`: one client, one key, whichever way it came. */
const plain = (address: string) => address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');

/** Outermost middleware: `ctx.ip` is the client's address as clientAddress derives it, for every handler after. */
export function trustedClientAddress(hops: number): Middleware {
  return (ctx, next) => {
    ctx.request.ip = clientAddress(ctx.req, hops);
    return next();
  };
}
