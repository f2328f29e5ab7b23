// Draws QR codes for rest-adapter/qr.pool.ts on a thread of its own, so a big PNG never holds the service's event loop.
// Plain JavaScript importing only the encoder: the same file runs from the sources (tests) and from dist/ (npm start).
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import QRCode from 'qrcode';

// The lowest CPU priority, for this thread alone (Linux's nice is per thread): drawing yields a shared core to the
// event loop and to everything else the machine runs. Where a platform refuses, the thread draws at the usual one.
try {
  setPriority(19);
} catch {
  /* drawn at the usual priority */
}

parentPort.on('message', async ({ text, format, options }) => {
  try {
    const body = format === 'svg' ? await QRCode.toString(text, { ...options, type: 'svg' }) : await QRCode.toBuffer(text, { ...options, type: 'png' });
    // Copied, not transferred: a small Buffer may share its memory with others of Node's buffer pool.
    parentPort.postMessage({ body });
  } catch (err) {
    parentPort.postMessage({ error: err instanceof Error ? err.message : String(err) });
  }
});
