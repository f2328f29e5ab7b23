import type { Context } from 'koa';
import { en, type Messages } from './en.js';
import { ur } from './ur.js';
import { GUEST_LANGUAGE_CODES, type GuestLanguage } from '../../shared/guest-languages.js';

/**
 * The page's languages: add a file beside en.ts (typed `Messages`, so a missing text fails the typecheck) and a line
 * here. Survey content is shown as the business wrote it, whatever the language.
 */
export const LANGUAGES: Record<GuestLanguage, { messages: Messages; dir: 'ltr' | 'rtl' }> = {
  en: { messages: en, dir: 'ltr' },
  ur: { messages: ur, dir: 'rtl' },
};
const DEFAULT_LANGUAGE: GuestLanguage = 'en';

export type { Messages };

/**
 * Among `offered` (a survey's languages, else every one): `lang=` on the link wins; then the browser's
 * Accept-Language, in its order of preference; then the first offered.
 */
export function chooseLanguage(ctx: Context, requested: string | undefined, offered: readonly string[] = GUEST_LANGUAGE_CODES): GuestLanguage {
  const ok = (code: string | undefined): code is GuestLanguage => !!code && code in LANGUAGES && offered.includes(code);
  if (ok(requested)) return requested;
  const accepted = (ctx.get('accept-language') || '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { lang: tag.toLowerCase().split('-')[0], q: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .filter((a) => a.q > 0 && ok(a.lang))
    .sort((a, b) => b.q - a.q);
  return (accepted[0]?.lang as GuestLanguage | undefined) ?? offered.find(ok) ?? DEFAULT_LANGUAGE;
}

/** `{name}` placeholders filled in. */
export function format(text: string, values: Record<string, string | number> = {}): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
