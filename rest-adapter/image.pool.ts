import { Worker } from 'node:worker_threads';
import { AppError } from '../src/shared/errors.js';

// A .mjs file next to this one, in the sources and in dist/ alike (scripts/build.js copies it): a thread cannot load .ts.
const WORKER_FILE = new URL('./image.worker.mjs', import.meta.url);
/** A thread with nothing to check for this long exits; the next upload starts one again. */
const IDLE_MS = 30_000;
/** A decode that takes longer is stopped (its thread ended) and the upload refused. */
const BUDGET_MS = 5_000;
/** Uploads waiting for the thread at most; beyond, a 503 at once. */
const MAX_WAITING = 8;
/** The thread's own heap: a decode that needs more ends it (and is refused) rather than growing the process. */
const HEAP_MB = 256;

export interface CheckedImage {
  type: 'image/png' | 'image/jpeg' | 'image/webp';
  width: number;
  height: number;
}

interface Job {
  data: Buffer;
  maxSide: number;
  resolve(image: CheckedImage): void;
  reject(err: Error): void;
}

const busy = (message: string) => new AppError('unavailable', message, undefined, { 'Retry-After': '2' });

/**
 * Uploaded images checked by decoding them on one worker thread, one at a time, never on the event loop: each under a
 * time budget and a heap of its own, so a hostile file can neither stall the service nor grow its memory. Uploads are
 * rare (a logo now and then), so one thread started on demand is enough; a queue of MAX_WAITING waits, more is a 503.
 */
export class ImagePool {
  private worker?: Worker;
  private job?: Job;
  private timer?: NodeJS.Timeout;
  private idle?: NodeJS.Timeout;
  private readonly waiting: Job[] = [];
  private closed = false;

  check(data: Buffer, maxSide: number): Promise<CheckedImage> {
    if (this.closed) return Promise.reject(busy('The service is stopping; ask again'));
    if (this.waiting.length >= MAX_WAITING) return Promise.reject(busy('Too many images are being checked; ask again shortly'));
    return new Promise((resolve, reject) => {
      this.waiting.push({ data, maxSide, resolve, reject });
      if (!this.job) this.next();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.waiting.splice(0)) job.reject(busy('The service is stopping; ask again'));
    clearTimeout(this.idle);
    clearTimeout(this.timer);
    await this.worker?.terminate();
  }

  private thread(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_FILE, { resourceLimits: { maxOldGenerationSizeMb: HEAP_MB } });
    worker.unref();
    worker.on('message', (answer: { error?: string } & Partial<CheckedImage>) => {
      const job = this.settle();
      if (answer.error !== undefined)
        job?.reject(new AppError('bad_request', `The logo was refused: ${answer.error}`, [{ field: 'body', message: answer.error }]));
      else job?.resolve({ type: answer.type!, width: answer.width!, height: answer.height! });
      this.next();
    });
    worker.on('error', () => undefined); // 'exit' follows and settles the job
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = undefined;
      const job = this.settle();
      job?.reject(
        this.closed
          ? busy('The service is stopping; ask again')
          : new AppError('bad_request', 'The logo was refused: it could not be decoded within the limits (time or memory)', [
              { field: 'body', message: 'could not be decoded within the limits' },
            ]),
      );
      if (!this.closed) this.next();
    });
    this.worker = worker;
    return worker;
  }

  private settle(): Job | undefined {
    clearTimeout(this.timer);
    const job = this.job;
    this.job = undefined;
    return job;
  }

  private next() {
    if (this.job || this.closed) return;
    const job = this.waiting.shift();
    if (!job) {
      clearTimeout(this.idle);
      this.idle = setTimeout(() => void this.worker?.terminate(), IDLE_MS);
      this.idle.unref();
      return;
    }
    clearTimeout(this.idle);
    const worker = this.thread();
    this.job = job;
    // Over budget: the thread is ended; its 'exit' refuses the job and the next one gets a new thread.
    this.timer = setTimeout(() => void worker.terminate(), BUDGET_MS);
    this.timer.unref();
    worker.postMessage({ data: job.data, maxSide: job.maxSide });
  }
}
