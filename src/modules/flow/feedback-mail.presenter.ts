import { logoPath } from '../business/index.js';

/**
 * A feedback request's e-mail as the guest sees it (issue 36): from the restaurant, its subject naming it, and an HTML
 * part beside the plain one: the logo, the same words, one large button. Inline styles and tables only (mail clients
 * drop style sheets); with images off, the restaurant's name and every word are still there.
 */

/** The subject flows were created with before it named the restaurant: read as "the default". */
const LEGACY_DEFAULT_SUBJECT = 'How was your order?';

const DEFAULT_SUBJECTS: Record<string, (business: string) => string> = {
  en: (business) => `How was your order at ${business}?`,
  ur: (business) => `${business} سے آپ کا آرڈر کیسا رہا؟`,
};

const BUTTON: Record<string, string> = { en: 'Give feedback', ur: 'اپنی رائے دیں' };
const STOP: Record<string, string> = { en: 'To stop these messages:', ur: 'یہ پیغامات بند کرنے کے لیے:' };
const RTL = new Set(['ur', 'ar', 'fa', 'he']);
const DEFAULT_COLOR = '#1D4ED8';

/** The subject: the flow's own when it wrote one, else the default naming the restaurant, in the guest's language. */
export function feedbackSubject(own: string | undefined, lang: string | undefined, business: string): string {
  if (own && own !== LEGACY_DEFAULT_SUBJECT) return own;
  return (DEFAULT_SUBJECTS[lang ?? ''] ?? DEFAULT_SUBJECTS.en)(business);
}

/** The plain part: the body, then the unsubscribe line in the e-mail's language (English when it has none). */
export function feedbackText(p: { lang: string; body: string; unsubscribe: string }): string {
  return `${p.body}\n\n${STOP[p.lang] ?? STOP.en} ${p.unsubscribe}\n`;
}

const esc = (v: string) => v.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Text as HTML: escaped, its line breaks kept, its links clickable. */
function paragraphs(text: string): string {
  return text
    .split(/(https?:\/\/[^\s<>"']+)/g)
    .map((part, i) => (i % 2 ? `<a href="${esc(part)}" style="color:inherit">${esc(part)}</a>` : esc(part).replace(/\r?\n/g, '<br>')))
    .join('');
}

export interface FeedbackMailParts {
  lang: string;
  business: string;
  brandColor: string | null;
  /** The service's public address (SURVEY_URL) and the business's logo file, when it has one. */
  baseUrl: string;
  businessId: string;
  logoFile: string | null;
  subject: string;
  body: string;
  link: string;
  unsubscribe: string;
}

export function feedbackHtml(p: FeedbackMailParts): string {
  const lang = BUTTON[p.lang] ? p.lang : 'en';
  const dir = RTL.has(lang) ? 'rtl' : 'ltr';
  const color = p.brandColor && /^#[0-9A-Fa-f]{6}$/.test(p.brandColor) ? p.brandColor : DEFAULT_COLOR;
  const font = 'font-family:system-ui,-apple-system,Segoe UI,Roboto,Helvetica,Arial,sans-serif';
  const logo = p.logoFile
    ? `<img src="${esc(p.baseUrl + logoPath(p.businessId, p.logoFile))}" alt="" height="48" style="display:block;height:48px;width:auto;max-width:200px;border:0;margin:0 0 12px">`
    : '';
  return `<!doctype html>
<html lang="${lang}" dir="${dir}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${esc(p.subject)}</title></head>
<body style="margin:0;padding:0;background:#f3f4f6">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f3f4f6"><tr><td align="center" style="padding:24px 12px">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:560px;background:#ffffff;border-radius:12px">
<tr><td dir="${dir}" style="padding:24px 24px 0;${font}">${logo}<p style="margin:0;${font};font-size:20px;font-weight:700;line-height:1.3;color:#111827">${esc(p.business)}</p></td></tr>
<tr><td dir="${dir}" style="padding:16px 24px;${font};font-size:16px;line-height:1.5;color:#1f2937"><p style="margin:0">${paragraphs(p.body)}</p></td></tr>
<tr><td dir="${dir}" style="padding:8px 24px 24px"><a href="${esc(p.link)}" style="display:inline-block;background:${color};color:#ffffff;${font};font-size:18px;font-weight:700;line-height:1;padding:16px 28px;border-radius:10px;text-decoration:none">${esc(BUTTON[lang])}</a></td></tr>
<tr><td dir="${dir}" style="padding:0 24px 24px;${font};font-size:13px;line-height:1.5;color:#4b5563">${esc(STOP[lang] ?? STOP.en)} <a href="${esc(p.unsubscribe)}" style="color:#374151">${esc(p.unsubscribe)}</a></td></tr>
</table>
</td></tr></table>
</body>
</html>`;
}
