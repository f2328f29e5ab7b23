import http from 'node:http';
import { PerformanceObserver } from 'node:perf_hooks';
import { Worker } from 'node:worker_threads';

/** The attacker's loopback address and the rightful party's (Linux routes all of 127/8 to loopback). */
export const ATTACKER = '127.0.0.2';
export const RIGHTFUL = '127.0.0.3';

export interface AddressedAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  body: any;
}

/** One HTTP request whose socket is bound to `localAddress`, so the service sees it come from there. */
export function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<AddressedAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers, localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

/** A JSON POST from `localAddress`. */
export const postJsonFrom = (localAddress: string, url: string, body: unknown, headers: Record<string, string> = {}) =>
  requestFrom(localAddress, url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/**
 * What another tenant sees while `attack` runs: `/healthz` asked every `everyMs` from the rightful address by a
 * thread of its own (so a frozen service shows as late answers even though the test server runs in this process),
 * each latency measured from the moment it was asked; a refused or failed answer counts as Infinity. It asks at least
 * MIN_SAMPLES times (going on after a short attack), so the percentiles are not one scheduling hiccup of a shared
 * machine; a frozen service still shows, as every answer asked during the freeze is late. `p95` is what the tests
 * assert on: on a 2-core machine shared with another jest worker a handful of answers may be late for reasons outside
 * the service (seen in CI: a p99 of 302 ms in a sign-in test whose delays are only timers), while a freeze of even 5% of the attack shows in it. `loopCpuMs` is the
 * CPU time the service's event loop (this thread: the test server runs here) spent during the attack, garbage
 * collections left out: work done on the
 * loop shows there whatever else the machine is doing, where a late answer may only mean another process had the cores.
 */
export async function healthzDuring<T>(
  baseUrl: string,
  attack: () => Promise<T>,
  everyMs = 10,
): Promise<{ result: T; latencies: number[]; p95: number; loopCpuMs: number }> {
  const probe = new Worker(new URL('./healthz-probe.worker.mjs', import.meta.url), {
    workerData: { url: `${baseUrl}/healthz`, localAddress: RIGHTFUL, everyMs, minSamples: MIN_SAMPLES },
  });
  await new Promise((resolve) => probe.once('online', resolve));
  // Garbage collections during the attack are left out of loopCpuMs: a jest worker's heap holds what earlier test files
  // left, and a full collection of it (seen in CI: ~350 ms) says nothing about where the service does its work.
  const gcs = new PerformanceObserver(() => {});
  gcs.observe({ entryTypes: ['gc'] });
  const startedAt = performance.now();
  const before = process.threadCpuUsage();
  let result: T;
  try {
    result = await attack();
  } finally {
    probe.postMessage('stop');
  }
  const used = process.threadCpuUsage(before);
  const gcMs = gcs
    .takeRecords()
    .filter((e) => e.startTime >= startedAt)
    .reduce((sum, e) => sum + e.duration, 0);
  gcs.disconnect();
  const loopCpuMs = Math.max(0, (used.user + used.system) / 1000 - gcMs);
  const latencies: number[] = await new Promise((resolve) => probe.once('message', resolve));
  await probe.terminate();
  return { result, latencies, p95: percentile(latencies, 0.95), loopCpuMs };
}

const MIN_SAMPLES = 100;

/** A percentile (0..1) of some latencies, nearest rank. */
export function percentile(latencies: number[], rank: number): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * rank) - 1)] ?? 0;
}
