/** What the cache may hold in all, counted in bytes of the codes. */
const MAX_BYTES = 8 * 1024 * 1024;

const bytesOf = (body: Buffer | string) => (typeof body === 'string' ? Buffer.byteLength(body) : body.length);

/**
 * QR codes already drawn, keyed by what makes their bytes (format, size and the link, which names the business, the
 * survey and the location's metadata, so a changed link is a new key and nothing goes stale). The least recently used
 * go once the total passes `maxBytes`. A code being drawn is shared with every request for it meanwhile: a flood of
 * one code draws it once.
 */
export class QrCache {
  private readonly drawn = new Map<string, Buffer | string>();
  private readonly drawing = new Map<string, Promise<Buffer | string>>();
  private bytes = 0;

  constructor(private readonly maxBytes = MAX_BYTES) {}

  /** The code when it is drawn or being drawn. */
  get(key: string): Promise<Buffer | string> | undefined {
    const body = this.drawn.get(key);
    if (body === undefined) return this.drawing.get(key);
    // Map order is insertion order: moved to the end, it is the most recently used.
    this.drawn.delete(key);
    this.drawn.set(key, body);
    return Promise.resolve(body);
  }

  /** The code from the cache, or drawn by `draw` (once, whoever asks meanwhile) and kept. */
  obtain(key: string, draw: () => Promise<Buffer | string>): Promise<Buffer | string> {
    const found = this.get(key);
    if (found) return found;
    const pending = draw()
      .then((body) => {
        this.keep(key, body);
        return body;
      })
      .finally(() => this.drawing.delete(key));
    this.drawing.set(key, pending);
    return pending;
  }

  private keep(key: string, body: Buffer | string) {
    const size = bytesOf(body);
    if (size > this.maxBytes) return;
    this.drawn.set(key, body);
    this.bytes += size;
    for (const [oldest, old] of this.drawn) {
      if (this.bytes <= this.maxBytes) break;
      this.drawn.delete(oldest);
      this.bytes -= bytesOf(old);
    }
  }
}
