import { randomFillSync } from 'node:crypto';

/**
 * Cryptographically random bytes, drawn from the operating system 4 KiB at a time: a call into OpenSSL per id or
 * session cost more than the rest of making it (request ids, a new guest's session on every first page view). Each
 * byte is handed out once; what a caller gets is a copy, so a refill never changes it.
 */
const pool = new Uint8Array(4096);
let at = pool.length;

export function randomBytesPooled(size: number): Buffer {
  if (size > pool.length) return randomFillSync(Buffer.alloc(size));
  if (at + size > pool.length) {
    randomFillSync(pool);
    at = 0;
  }
  return Buffer.from(pool.subarray(at, (at += size)));
}
