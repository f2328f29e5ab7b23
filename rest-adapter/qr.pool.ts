import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { AppError } from '../src/shared/errors.js';

export type QrFormat = 'svg' | 'png';
export interface QrOptions {
  width: number;
  margin: number;
  errorCorrectionLevel: 'L' | 'M' | 'Q' | 'H';
}

// A .mjs file next to this one, in the sources and in dist/ alike (scripts/build.js copies it): a thread cannot load .ts.
const WORKER_FILE = new URL('./qr.worker.mjs', import.meta.url);
/** A thread with nothing to draw for this long exits (it holds a heap of its own); the next code starts one again. */
const IDLE_MS = 30_000;
/** What a refused caller is told to wait: the queue drains in about that long. */
const RETRY_AFTER_S = 2;

interface Job {
  cost: number;
  text: string;
  format: QrFormat;
  options: QrOptions;
  resolve(body: Buffer | string): void;
  reject(err: Error): void;
}

interface Thread {
  worker: Worker;
  job?: Job;
  idle?: NodeJS.Timeout;
  /** Told to end (idle): takes no more jobs. */
  ending?: boolean;
  /** Why it stopped, when it crashed. */
  failure?: Error;
}

/**
 * What drawing a code costs, in the API's cost units (weightOf: 100 a unit): a PNG by its pixels (a 2048 px one 4096,
 * some 41 units), an SVG as one small query (its size is only an attribute). The caller's quota is charged this, and
 * the pool's line is bounded by it.
 */
export const drawingCost = (format: QrFormat, size: number) => (format === 'png' ? Math.ceil((size * size) / 1024) : 1);

const busy = (message: string) => new AppError('unavailable', message, undefined, { 'Retry-After': String(RETRY_AFTER_S) });

/**
 * QR codes drawn on worker threads, never on the event loop: at most `size` at once, and a line of at most
 * `maxWaitingCost` (drawingCost) more; beyond that a 503 with Retry-After at once, so a flood costs neither the event
 * loop nor unbounded memory, while a burst of small codes still waits its turn. Threads start with the first code
 * asked for and end when idle (a process that draws none pays nothing).
 */
export class QrPool {
  readonly size: number;
  private readonly maxWaitingCost: number;
  /** Every thread until it has exited. */
  private readonly alive = new Set<Thread>();
  private readonly waiting: Job[] = [];
  private waitingCost = 0;
  private closed = false;

  constructor(options: { size?: number; maxWaitingCost?: number } = {}) {
    // One core stays the event loop's, and two threads are plenty for codes that are cached once drawn.
    this.size = options.size ?? Math.min(2, Math.max(1, availableParallelism() - 1));
    // Eight of the biggest codes per thread.
    this.maxWaitingCost = options.maxWaitingCost ?? 8 * this.size * drawingCost('png', 2048);
  }

  /** Threads alive now. */
  get threads(): number {
    return this.alive.size;
  }

  draw(text: string, format: 'png', options: QrOptions): Promise<Buffer>;
  draw(text: string, format: 'svg', options: QrOptions): Promise<string>;
  draw(text: string, format: QrFormat, options: QrOptions): Promise<Buffer | string>;
  draw(text: string, format: QrFormat, options: QrOptions): Promise<Buffer | string> {
    if (this.closed) return Promise.reject(busy('The service is stopping; ask again'));
    const cost = drawingCost(format, options.width);
    const working = [...this.alive].filter((t) => !t.ending);
    const free = working.find((t) => !t.job) ?? (working.length < this.size ? this.spawn() : undefined);
    if (!free && this.waitingCost + cost > this.maxWaitingCost) return Promise.reject(busy('Too many QR codes are being drawn; ask again shortly'));
    return new Promise((resolve, reject) => {
      const job: Job = { cost, text, format, options, resolve, reject };
      if (free) return this.run(free, job);
      this.waiting.push(job);
      this.waitingCost += cost;
    });
  }

  /** Refuses what waits and ends every thread (the app's stop). */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(busy('The service is stopping; ask again'));
    this.waitingCost = 0;
    await Promise.all([...this.alive].map((t) => t.worker.terminate()));
    this.alive.clear();
  }

  private spawn(): Thread {
    const thread: Thread = { worker: new Worker(WORKER_FILE) };
    // A thread never keeps the process alive: the request waiting for its code does while it matters.
    thread.worker.unref();
    thread.worker.on('message', (answer: { body?: Uint8Array | string; error?: string }) => {
      const job = thread.job;
      thread.job = undefined;
      if (answer.error !== undefined) job?.reject(new AppError('bad_request', `The survey link cannot be drawn as a QR code: ${answer.error}`));
      else job?.resolve(typeof answer.body === 'string' ? answer.body : Buffer.from(answer.body!.buffer, answer.body!.byteOffset, answer.body!.byteLength));
      this.next(thread);
    });
    // An 'error' is followed by 'exit': the job fails there, once.
    thread.worker.on('error', (err) => (thread.failure = err));
    thread.worker.on('exit', () => {
      clearTimeout(thread.idle);
      this.alive.delete(thread);
      thread.job?.reject(
        this.closed
          ? busy('The service is stopping; ask again')
          : new AppError('internal', `The QR code thread stopped while drawing: ${thread.failure?.message ?? 'exited'}`),
      );
      thread.job = undefined;
      // A thread that died leaves the line to a new one.
      if (this.waiting.length && !this.closed) this.next(this.spawn());
    });
    this.alive.add(thread);
    return thread;
  }

  private run(thread: Thread, job: Job) {
    clearTimeout(thread.idle);
    thread.job = job;
    thread.worker.postMessage({ text: job.text, format: job.format, options: job.options });
  }

  private next(thread: Thread) {
    const job = this.waiting.shift();
    if (job) {
      this.waitingCost -= job.cost;
      return this.run(thread, job);
    }
    thread.idle = setTimeout(() => {
      thread.ending = true;
      void thread.worker.terminate();
    }, IDLE_MS);
    thread.idle.unref();
  }
}
