import type { Context } from 'koa';
import type { GuestBrand } from '../modules/business/index.js';
import { chooseLanguage, LANGUAGES } from './messages/index.js';
import { GUEST_LANGUAGE_CODES } from '../shared/guest-languages.js';
import type { Frame } from './guest.pages.js';

/** A query parameter's first value (a repeated one counts once); empty is none. */
export const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) || undefined;

/** The page's own URL with some parameters changed: the link's parameters ride along on every step. */
export function urlWith(ctx: Context, path: string, changes: Record<string, string | null>): string {
  const params = new URLSearchParams(ctx.querystring);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) params.delete(name);
    else params.set(name, value);
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/**
 * What every guest page is drawn in: the guest's language (`lang=`, else Accept-Language), links to `path` in the
 * others the survey offers (none with `switcher: false`: a page that only answers a form), and the survey's name and
 * business's face.
 */
export function frameFor(
  ctx: Context,
  path: string,
  options: { surveyName?: string; brand?: GuestBrand | null; switcher?: boolean; languages?: readonly string[] | null } = {},
): Frame {
  const offered = options.languages ?? GUEST_LANGUAGE_CODES;
  const lang = chooseLanguage(ctx, first(ctx.query.lang), offered);
  const { messages, dir } = LANGUAGES[lang];
  const languages =
    options.switcher === false
      ? []
      : Object.entries(LANGUAGES)
          .filter(([code]) => code !== lang && offered.includes(code))
          .map(([code, l]) => ({ code, name: l.messages.languageName, href: urlWith(ctx, path, { lang: code }) }));
  return { lang, dir, t: messages, surveyName: options.surveyName, brand: options.brand, languages };
}
