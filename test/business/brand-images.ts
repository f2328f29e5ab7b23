import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { PNG } = require('pngjs') as { PNG: any };
const jpeg = require('jpeg-js') as { encode(img: { width: number; height: number; data: Buffer }, quality: number): { data: Buffer } };

/** A PNG of `width`×`height` filled with one colour (RGB). */
export function png(width = 64, height = 64, rgb: [number, number, number] = [20, 83, 45]): Buffer {
  const image = new PNG({ width, height });
  for (let i = 0; i < width * height; i++) image.data.set([...rgb, 255], i * 4);
  return PNG.sync.write(image);
}

export function jpg(width = 32, height = 32): Buffer {
  return jpeg.encode({ width, height, data: Buffer.alloc(width * height * 4, 180) }, 80).data;
}

/** A 1×1 lossless WebP. */
export const webp = () => Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');

export const svg = () => Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>');

/** A PNG whose header is right and whose pixels are cut off: an image only by its first bytes. */
export const truncatedPng = () => png(64, 64).subarray(0, 60);
