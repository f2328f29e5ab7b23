// Checks an uploaded image for rest-adapter/image.pool.ts on a thread of its own, by decoding every pixel: a tenant's
// file never holds the service's event loop, and a file that only looks like an image (a right header over garbage,
// a truncated body, an SVG) is refused. Plain JavaScript: the same file runs from the sources and from dist/.
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { imageSize } from 'image-size';

const require = createRequire(import.meta.url);
const { PNG } = require('pngjs');
const jpeg = require('jpeg-js');
const webp = require('@cwasm/webp');

try {
  setPriority(19);
} catch {
  /* checked at the usual priority */
}

const TYPES = { png: 'image/png', jpg: 'image/jpeg', webp: 'image/webp' };

function check(data, maxSide) {
  const head = data.subarray(0, 512).toString('utf8').trimStart().toLowerCase();
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg')) || head.includes('<svg'))
    return { error: 'SVG is not accepted (it can carry scripts): send a PNG, JPEG or WebP image' };
  let size;
  try {
    size = imageSize(data);
  } catch {
    return { error: 'the body is not a PNG, JPEG or WebP image' };
  }
  if (size.type === 'svg') return { error: 'SVG is not accepted (it can carry scripts): send a PNG, JPEG or WebP image' };
  const type = TYPES[size.type];
  if (!type) return { error: `the body is a ${size.type} image: send a PNG, JPEG or WebP image` };
  if (size.images?.length > 1 && size.type !== 'png') return { error: 'the body holds several images: send one' };
  const { width, height } = size;
  if (!(width > 0 && height > 0)) return { error: 'the image has no pixels' };
  if (width > maxSide || height > maxSide) return { error: `the image is ${width}×${height} pixels: at most ${maxSide}×${maxSide}` };
  let decoded;
  try {
    if (type === 'image/png') decoded = PNG.sync.read(data);
    else if (type === 'image/jpeg')
      decoded = jpeg.decode(data, { maxResolutionInMP: Math.ceil((maxSide * maxSide) / 1e6), maxMemoryUsageInMB: 128, formatAsRGBA: false });
    else decoded = webp.decode(data);
  } catch {
    return { error: `the body is not a whole ${type.slice(6).toUpperCase()} image: it could not be decoded` };
  }
  if (decoded.width !== width || decoded.height !== height) return { error: 'the image could not be decoded: its size does not match its header' };
  return { type, width, height };
}

parentPort.on('message', ({ data, maxSide }) => {
  try {
    parentPort.postMessage(check(Buffer.from(data.buffer, data.byteOffset, data.byteLength), maxSide));
  } catch (err) {
    parentPort.postMessage({ error: `the image could not be decoded (${err instanceof Error ? err.message : String(err)})` });
  }
});
