import { createRequire } from 'node:module';
import type { CheckedLogo } from '../modules/business/index.js';

const require = createRequire(import.meta.url);

/** The demo's face (issue 36): a display name, a dark green white text reads on (about 10:1) and a drawn logo. */
export const DEMO_DISPLAY_NAME = 'Demo Bistro · Karahi & Grill';
export const DEMO_BRAND_COLOR = '#14532D';

/** A 128 px round badge in the brand colour with a light ring: a PNG drawn here, no file shipped. */
export function demoLogo(): CheckedLogo {
  const { PNG } = require('pngjs') as { PNG: any };
  const size = 128;
  const image = new PNG({ width: size, height: size });
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(DEMO_BRAND_COLOR.slice(i, i + 2), 16));
  const centre = (size - 1) / 2;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const d = Math.hypot(x - centre, y - centre);
      const i = (y * size + x) * 4;
      // Brand disc, a cream ring inside it, and a small cream dot: recognisable at 40 px.
      const ring = d > 40 && d < 48;
      const dot = d < 14;
      if (d <= 62) image.data.set(ring || dot ? [254, 243, 199, 255] : [r, g, b, 255], i);
      else image.data.set([0, 0, 0, 0], i);
    }
  }
  return { data: PNG.sync.write(image), contentType: 'image/png', width: size, height: size };
}
