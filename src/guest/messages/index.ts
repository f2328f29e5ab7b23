import type { Context } from 'koa';
import { en, type Messages } from './en.js';
import { ur } from './ur.js';

/**
 * The page's languages: add a file beside en.ts (typed `Messages`, so a missing text fails the typecheck) and a line
 * here. Survey content is shown as the business wrote it, whatever the language.
 */
export const LANGUAGES: Record<string, { messages: Messages; dir: 'ltr' | 'rtl' }> = {
  en: { messages: en, dir: 'ltr' },
  ur: { messages: ur, dir: 'rtl' },
};
export const DEFAULT_LANGUAGE = 'en';

export type { Messages };

/** `lang=` on the link wins; then the browser's Accept-Language, in its order of preference; then English. */
export function chooseLanguage(ctx: Context, requested: string | undefined): string {
  if (requested && LANGUAGES[requested]) return requested;
  const accepted = (ctx.get('accept-language') || '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { lang: tag.toLowerCase().split('-')[0], q: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .filter((a) => a.q > 0 && LANGUAGES[a.lang])
    .sort((a, b) => b.q - a.q);
  return accepted[0]?.lang ?? DEFAULT_LANGUAGE;
}

/** `{name}` placeholders filled in. */
export function format(text: string, values: Record<string, string | number> = {}): string {
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
