import isEmailModule from 'validator/lib/isEmail.js';
import { Checks } from '../../shared/validation.js';

const isEmail = isEmailModule.default;

const DISPLAY_NAME_MAX = 80;
/** WCAG 2.x AA for normal text. */
const MIN_CONTRAST = 4.5;
const HEX = /^#[0-9a-fA-F]{6}$/;

/** WCAG 2.x relative luminance of `#RRGGBB`. */
function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** The contrast ratio of white text on `hex` (1 to 21). */
export const whiteContrast = (hex: string) => 1.05 / (luminance(hex) + 0.05);

export interface BrandFields {
  name?: string;
  displayName?: string | null;
  brandColor?: string | null;
  reviewUrl?: string | null;
  replyTo?: string | null;
}

/** The fields given, trimmed (a colour upper-cased), or a 400 naming each wrong one. Absent: unchanged; null: cleared. */
export function checkBrandFields(input: BrandFields): BrandFields {
  const checks = new Checks();
  const out: BrandFields = {};
  const optional = (v: string | null | undefined) => (v == null ? v : v.trim() || null);
  if (input.name !== undefined) {
    const name = (input.name ?? '').trim();
    if (!name || name.length > 200) checks.fail('name', 'must be 1 to 200 characters');
    out.name = name;
  }
  if (input.displayName !== undefined) {
    out.displayName = optional(input.displayName);
    if (out.displayName && out.displayName.length > DISPLAY_NAME_MAX) checks.fail('displayName', `must be at most ${DISPLAY_NAME_MAX} characters`);
  }
  if (input.brandColor !== undefined) {
    const color = optional(input.brandColor);
    if (color != null && !HEX.test(color)) checks.fail('brandColor', 'must be a colour written #RRGGBB, such as #1D4ED8');
    else if (color != null && whiteContrast(color) < MIN_CONTRAST) {
      checks.fail(
        'brandColor',
        `white text on ${color.toUpperCase()} has a contrast of ${whiteContrast(color).toFixed(2)}:1, under the ${MIN_CONTRAST}:1 WCAG AA asks for: choose a darker colour`,
      );
    }
    out.brandColor = color?.toUpperCase() ?? color;
  }
  if (input.reviewUrl !== undefined) {
    out.reviewUrl = optional(input.reviewUrl);
    if (out.reviewUrl != null) {
      let ok = false;
      try {
        const url = new URL(out.reviewUrl);
        ok = url.protocol === 'https:' && !!url.hostname && !url.username && !url.password;
      } catch {
        ok = false;
      }
      if (!ok || out.reviewUrl.length > 2000) checks.fail('reviewUrl', 'must be an https URL of at most 2000 characters');
    }
  }
  if (input.replyTo !== undefined) {
    out.replyTo = optional(input.replyTo);
    if (out.replyTo != null && (out.replyTo.length > 254 || !isEmail(out.replyTo))) checks.fail('replyTo', 'must be an e-mail address');
  }
  checks.throwIfAny();
  return out;
}

/** A logo's address on this service: the file name carries its content hash, so it never changes. */
export const logoPath = (business: string, file: string) => `/logos/${business}/${file}`;
