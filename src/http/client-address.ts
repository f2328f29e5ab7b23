import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';
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

/**
 * The client as every per-address limit counts it: an IPv4 address itself; an IPv6 address its /64, the network one
 * subscriber is given and whose 2^64 addresses any of its hosts may take at will (RFC 6177), so rotating through them
 * is still one client. The one place the key is made: the limits (src/http/rate-limit, the sign-in's) call it.
 */
export function addressGroup(address: string): string {
  const bare = address.replace(/%.*$/, '');
  if (!isIPv6(bare)) return address;
  const [head, tail] = bare.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // A dotted IPv4 tail stands for two groups; '::' for the zero groups that make eight.
  const groups = (parts: string[]) => parts.reduce((n, part) => n + (part.includes('.') ? 2 : 1), 0);
  const full = [...left, ...Array<string>(tail === undefined ? 0 : 8 - groups(left) - groups(right)).fill('0'), ...right];
  return `${full
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(':')}::/64`;
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
