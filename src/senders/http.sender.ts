import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { blockedAddressReason } from '../shared/network.js';
// The port is named as the class that implements it, which the modules know only as that port.
import type { AttemptError, HttpOutcome, HttpSender as HttpSenderPort } from '../shared/sender.ports.js';

export interface HttpSenderOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  userAgent: string;
  maxStoredBytes?: number;
}

class BlockedAddressError extends Error {
  readonly code = 'EBLOCKED';
}

const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);
const TLS_CODE = /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO|SELF_SIGNED|UNABLE_TO_|ERR_OSSL|HOSTNAME_MISMATCH)/;
// Enough of a response to read an error page; the rest is drained up to this many bytes, then the socket is cut.
const MAX_DRAINED_BYTES = 1 << 20;

/**
 * POSTs to endpoints outside: no redirects followed (a 3xx is an answer, and a failure), one deadline for the
 * whole exchange, and the address checked when the socket connects, after DNS, so a name that resolved to a
 * public address at creation cannot be pointed at a private one later (DNS rebinding).
 */
export class HttpSender implements HttpSenderPort {
  private readonly agents: { http: http.Agent; https: https.Agent };

  constructor(private readonly options: HttpSenderOptions) {
    const lookup = this.checkedLookup();
    const common = { keepAlive: true, maxSockets: 16, lookup, timeout: options.timeoutMs };
    this.agents = { http: new http.Agent(common), https: new https.Agent(common) };
  }

  private checkedLookup(): LookupFunction {
    const allow = this.options.allowPrivateNetworks;
    return (hostname, options, callback) => {
      dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) return (callback as (e: Error) => void)(err);
        const list = addresses as dns.LookupAddress[];
        const reason = list.map((a) => blockedAddressReason(a.address, allow)).find(Boolean);
        if (reason || !list.length) return (callback as (e: Error) => void)(new BlockedAddressError(`${hostname}: ${reason ?? 'no address'}`));
        if ((options as dns.LookupOptions).all) (callback as (e: null, a: dns.LookupAddress[]) => void)(null, list);
        else (callback as (e: null, a: string, f: number) => void)(null, list[0].address, list[0].family);
      });
    };
  }

  post(target: string, headers: Record<string, string>, body: string): Promise<HttpOutcome> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const url = new URL(target);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    // A literal address never goes through the lookup: check it here.
    if (isIP(host)) {
      const reason = blockedAddressReason(host, this.options.allowPrivateNetworks);
      if (reason) return Promise.resolve({ status: null, body: null, durationMs: 0, error: 'blocked_address', message: reason });
    }
    const secure = url.protocol === 'https:';
    const maxStored = this.options.maxStoredBytes ?? 4096;
    return new Promise((resolve) => {
      let timedOut = false;
      let done = false;
      const finish = (outcome: Omit<HttpOutcome, 'durationMs'>) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        resolve({ ...outcome, durationMs: elapsed() });
      };
      const request = (secure ? https : http).request(url, {
        method: 'POST',
        agent: secure ? this.agents.https : this.agents.http,
        headers: { ...headers, 'user-agent': this.options.userAgent, 'content-length': String(Buffer.byteLength(body)) },
      });
      const timer = setTimeout(() => {
        timedOut = true;
        request.destroy(new Error(`no complete answer within ${this.options.timeoutMs} ms`));
      }, this.options.timeoutMs);
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        let stored = 0;
        let seen = 0;
        response.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (stored < maxStored) {
            chunks.push(chunk.subarray(0, maxStored - stored));
            stored += Math.min(chunk.length, maxStored - stored);
          }
          if (seen > MAX_DRAINED_BYTES) response.destroy();
        });
        const settle = () => {
          const status = response.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          finish({
            status,
            body: Buffer.concat(chunks).toString('utf8'),
            error: ok ? null : 'http_status',
            message: ok ? undefined : `HTTP ${status}`,
            retryAfterMs: parseRetryAfter(response.headers['retry-after']),
          });
        };
        response.on('end', settle);
        response.on('close', () =>
          timedOut ? finish({ status: response.statusCode ?? null, body: null, error: 'timeout', message: 'timed out reading the answer' }) : settle(),
        );
        response.on('error', () => {});
      });
      request.on('error', (err: NodeJS.ErrnoException) => {
        if (timedOut) return finish({ status: null, body: null, error: 'timeout', message: err.message });
        finish({ status: null, body: null, error: classify(err), message: `${err.code ?? ''} ${err.message}`.trim() });
      });
      request.end(body);
    });
  }

  close() {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}

function classify(err: NodeJS.ErrnoException): AttemptError {
  const code = err.code ?? '';
  if (code === 'EBLOCKED') return 'blocked_address';
  if (DNS_CODES.has(code)) return 'dns';
  if (TLS_CODE.test(code) || /certificate|ssl|tls/i.test(err.message)) return 'tls';
  return 'connect';
}

/** Seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return undefined;
  if (/^\d+$/.test(raw.trim())) return Number(raw.trim()) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}
