import { createHash } from 'node:crypto';
import { escapeHtml as e } from '../http/html.js';
import type { Location } from '../modules/location/index.js';
import type { Metric } from '../modules/metric/index.js';
import type { SurveyStep } from '../modules/survey/index.js';
import { type OrderDish, itemRatings } from '../modules/submission/index.js';
import type { GuestBrand } from '../modules/business/index.js';
import { format, type Messages } from './messages/index.js';

/**
 * The survey page's HTML: one step per screen, plain forms (JavaScript is never needed), mobile first. Every value
 * that came from a business or a guest goes through `e`, and shows in its own direction (`dir="auto"`): an English
 * question stays left to right on an Urdu page. The only style is the constant below, allowed by its hash.
 */
const STYLE = `
*{box-sizing:border-box}
body{font:17px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Noto Nastaliq Urdu",sans-serif;margin:0;background:#f3f4f6;color:#111827}
main{max-width:34rem;margin:0 auto;padding:1rem;background:#fff;min-height:100vh}
header{display:flex;justify-content:space-between;align-items:baseline;gap:1rem;flex-wrap:wrap;color:#374151;font-size:.95rem}
header p{margin:0;font-weight:600}
.brand{flex-basis:100%;display:flex;align-items:center;gap:.7rem;min-height:2.5rem}
.brand img{height:40px;width:auto;max-width:160px;object-fit:contain}
.brand .name{font-size:1.15rem;font-weight:700;color:#111827}
nav a{color:var(--brand,#1d4ed8);margin-inline-start:.6rem}
.progress{margin:.8rem 0 .2rem;color:#374151;font-size:.95rem}
progress{width:100%;height:.5rem;accent-color:var(--brand,#1d4ed8)}
h1{font-size:1.45rem;line-height:1.3;margin:1rem 0 .6rem}
h2{font-size:1.15rem;margin:.2rem 0 .5rem}
.body{color:#1f2937;white-space:pre-line}
fieldset{border:0;padding:0;margin:0 0 1.4rem;min-width:0}
legend{padding:0;font-weight:600;font-size:1.05rem;margin-bottom:.4rem}
legend h1{margin:0 0 .4rem}
.hint{color:#4b5563;font-size:.92rem;margin:.1rem 0 .5rem}
.scale{display:flex;flex-wrap:wrap;gap:.4rem}
.scale label{flex:1 0 2.7rem;max-width:4.2rem}
.options{display:grid;gap:.5rem}
.scale label,.options label{display:flex;align-items:center;justify-content:center;gap:.5rem;min-height:3rem;padding:.4rem .6rem;border:2px solid #6b7280;border-radius:10px;cursor:pointer;background:#fff}
.options label{justify-content:flex-start}
.scale input,.options input{width:1.2rem;height:1.2rem;margin:0;accent-color:var(--brand,#1d4ed8)}
label:has(input:checked){border-color:var(--brand,#1d4ed8);background:#eff6ff}
label:has(input:focus-visible){outline:3px solid var(--brand,#1d4ed8);outline-offset:2px}
.ends{display:flex;justify-content:space-between;color:#4b5563;font-size:.88rem;margin-top:.3rem}
input[type=text],input[type=number],input[type=email],input[type=tel],textarea{width:100%;font:inherit;padding:.7rem;border:2px solid #6b7280;border-radius:10px}
textarea{min-height:8rem}
.field-error{color:#b91c1c;font-weight:600;margin:.2rem 0 .4rem}
.invalid input[type=text],.invalid textarea,.invalid input[type=number]{border-color:#b91c1c}
.error-summary{border:3px solid #b91c1c;border-radius:10px;padding:.8rem 1rem;margin:1rem 0}
.error-summary:focus{outline:3px solid #f59e0b}
.error-summary a{color:#b91c1c;font-weight:600}
.actions{display:flex;gap:.8rem;align-items:center;margin-top:1.2rem}
button{font:inherit;font-weight:600;padding:.8rem 1.4rem;border-radius:10px;border:0;background:var(--brand,#1d4ed8);color:#fff;min-width:8rem;cursor:pointer}
button:focus-visible,a:focus-visible,textarea:focus-visible,input:focus-visible{outline:3px solid var(--brand,#1d4ed8);outline-offset:2px}
.actions a{color:var(--brand,#1d4ed8)}
.actions{flex-wrap:wrap}
button.secondary{background:#fff;color:var(--brand,#1d4ed8);border:2px solid var(--brand,#1d4ed8)}
.hp{position:absolute;inset-inline-start:-10000px;top:auto;width:1px;height:1px;overflow:hidden}
.visually-hidden{position:absolute!important;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.review{display:inline-block;margin-top:1rem;padding:.8rem 1.2rem;border-radius:10px;background:var(--brand,#1d4ed8);color:#fff;font-weight:600;text-decoration:none}
`;
const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** The guest pages' policy (survey pages and feedback links alike): their one stylesheet by hash, no script at all. */
export const GUEST_CSP = `default-src 'none'; style-src ${STYLE_HASH}; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`;

/** The brand's colour as the page's one variable, in a second style allowed by its own hash (kept per colour). */
const brandStyles = new Map<string, { css: string; csp: string }>();
function brandStyle(color: string): { css: string; csp: string } {
  let style = brandStyles.get(color);
  if (!style) {
    const css = `:root{--brand:${color}}`;
    const hash = `'sha256-${createHash('sha256').update(css).digest('base64')}'`;
    style = { css, csp: GUEST_CSP.replace(`style-src ${STYLE_HASH}`, `style-src ${STYLE_HASH} ${hash}`) };
    if (brandStyles.size < 10_000) brandStyles.set(color, style);
  }
  return style;
}

/** The policy of a page showing `brand`: the brand colour's style allowed beside the page's own. */
export function guestCsp(brand?: GuestBrand | null): string {
  const color = brand?.color && /^#[0-9A-Fa-f]{6}$/.test(brand.color) ? brand.color : null;
  return color ? brandStyle(color).csp : GUEST_CSP;
}

export interface Frame {
  lang: string;
  dir: 'ltr' | 'rtl';
  t: Messages;
  surveyName?: string;
  /** The business's face (issue 36): its display name, logo and colour in the header, buttons and focus rings. */
  brand?: GuestBrand | null;
  /** Links to the same page in each other language. */
  languages: Array<{ code: string; name: string; href: string }>;
}

/** The logo (decorative: the name beside it says who is asking, also with images off) and the display name. */
function brandHeader(brand?: GuestBrand | null): string {
  if (!brand) return '';
  const logo = brand.logo ? `<img src="${e(brand.logo)}" alt="" width="40" height="40">` : '';
  return `<div class="brand">${logo}<p class="name" dir="auto">${e(brand.name)}</p></div>`;
}

function layout(frame: Frame, title: string, body: string): string {
  const langs = frame.languages.length
    ? `<nav aria-label="${e(frame.t.languages)}">${frame.languages.map((l) => `<a href="${e(l.href)}" lang="${e(l.code)}" hreflang="${e(l.code)}">${e(l.name)}</a>`).join('')}</nav>`
    : '';
  return `<!doctype html>
<html lang="${e(frame.lang)}" dir="${frame.dir}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="same-origin">
<meta name="robots" content="noindex">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<title>${e(title)}</title>
<style>${STYLE}</style>${frame.brand?.color && /^#[0-9A-Fa-f]{6}$/.test(frame.brand.color) ? `<style>${brandStyle(frame.brand.color).css}</style>` : ''}
</head>
<body><main>
<header>${brandHeader(frame.brand)}${frame.surveyName ? `<p dir="auto">${e(frame.surveyName)}</p>` : '<span></span>'}${langs}</header>
${body}
</main></body>
</html>`;
}

export function messagePage(frame: Frame, title: string, text: string, extra = ''): string {
  return layout(frame, title, `<h1 dir="auto">${e(title)}</h1>\n<p class="body" dir="auto">${e(text)}</p>${extra}`);
}

export function thanksPage(frame: Frame, p: { heading?: string; text?: string; reviewUrl?: string }): string {
  const heading = p.heading || frame.t.thanksTitle;
  const review = p.reviewUrl ? `\n<p><a class="review" href="${e(p.reviewUrl)}" rel="noopener noreferrer">${e(frame.t.reviewUs)}</a></p>` : '';
  return messagePage(frame, heading, p.text || frame.t.thanksBody, review);
}

/** One problem with the posted answer: `anchor` is the id of the control the summary links to. */
export interface FieldError {
  key: string;
  anchor: string;
  message: string;
}

/** What the controls show: the guest's earlier answer, or what they just posted. */
export interface Shown {
  value?: unknown;
  ratings?: Record<string, unknown>;
  items?: Record<string, unknown>;
}

export interface StepView {
  step: SurveyStep;
  index: number;
  total: number;
  action: string;
  csrf: string;
  backHref?: string;
  metrics: Map<string, Metric>;
  locations: Location[];
  /** The order's dishes, for an items step: one question each. */
  dishes?: OrderDish[];
  errors: FieldError[];
  shown: Shown;
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');

export const isMultipleChoice = (step: SurveyStep) => step.inputType === 'multiple' || step.content.multiple === true;
const isLongText = (step: SurveyStep) => ['long', 'textarea', 'paragraph'].includes(step.inputType ?? '');
export const isNumberText = (step: SurveyStep) => step.inputType === 'number';

export function stepPage(frame: Frame, v: StepView): string {
  const { t } = frame;
  const { step } = v;
  const title = str(step.content.title);
  const body = str(step.content.body);
  const errorFor = (key: string) => v.errors.find((x) => x.key === key);
  const errorLine = (key: string) => {
    const err = errorFor(key);
    return err ? `<p class="field-error" id="err-${e(key)}"><span class="visually-hidden">Error:</span> ${e(err.message)}</p>` : '';
  };
  const describedBy = (key: string, hint?: string) => {
    const ids = [hint, errorFor(key) ? `err-${key}` : undefined].filter(Boolean);
    return ids.length ? ` aria-describedby="${e(ids.join(' '))}"` : '';
  };
  const bodyHtml = body ? `<p class="body" dir="auto" id="body-${e(step.id)}">${e(body)}</p>` : '';
  const requiredMark = step.required ? '' : ` <span class="hint">(${e(t.optional)})</span>`;

  const radios = (name: string, idPrefix: string, options: Array<{ value: string; label: string }>, checked: (value: string) => boolean, cls: string) =>
    `<div class="${cls}">${options
      .map(
        (o, i) =>
          `<label for="${e(idPrefix)}-${i}"><input type="radio" id="${e(idPrefix)}-${i}" name="${e(name)}" value="${e(o.value)}"${checked(o.value) ? ' checked' : ''}> <span dir="auto">${e(o.label)}</span></label>`,
      )
      .join('')}</div>`;

  let controls: string;
  let heading = '';
  switch (step.type) {
    case 'metrics': {
      heading = `<h1 dir="auto">${e(title || frame.surveyName || '')}</h1>${bodyHtml}`;
      controls = step.metricIds
        .map((id) => v.metrics.get(id))
        .filter((m): m is Metric => !!m)
        .map((m) => {
          const key = `r-${m.id}`;
          const options = Array.from({ length: m.scaleMax - m.scaleMin + 1 }, (_, i) => String(m.scaleMin + i)).map((n) => ({ value: n, label: n }));
          const current = v.shown.ratings?.[m.id];
          const hintId = `hint-${m.id}`;
          return `<fieldset${describedBy(key, hintId)}${errorFor(key) ? ' class="invalid"' : ''}>
<legend><span dir="auto">${e(m.name)}</span>${requiredMark}</legend>
<p class="hint" id="${e(hintId)}">${e(format(t.scaleHint, { min: m.scaleMin, max: m.scaleMax }))}</p>
${errorLine(key)}${radios(`rating-${m.id}`, key, options, (o) => String(current ?? '') === o, 'scale')}
</fieldset>`;
        })
        .join('\n');
      break;
    }
    case 'nps': {
      const options = Array.from({ length: 11 }, (_, i) => ({ value: String(i), label: String(i) }));
      controls = `<fieldset${describedBy('value', `ends-${step.id}`)}${errorFor('value') ? ' class="invalid"' : ''}>
<legend><h1><span dir="auto">${e(title || t.npsDefaultTitle)}</span>${requiredMark}</h1></legend>${bodyHtml}
${errorLine('value')}${radios('value', 'value', options, (o) => String(v.shown.value ?? '') === o, 'scale')}
<p class="ends" id="ends-${e(step.id)}"><span>0: ${e(t.npsLow)}</span><span>10: ${e(t.npsHigh)}</span></p>
</fieldset>`;
      break;
    }
    case 'choice':
    case 'location': {
      const options =
        step.type === 'location'
          ? v.locations.map((l) => ({ value: l.id, label: l.name }))
          : (Array.isArray(step.content.choices) ? (step.content.choices as unknown[]) : []).map((c) => ({ value: String(c), label: String(c) }));
      const multiple = step.type === 'choice' && isMultipleChoice(step);
      const picked = new Set(Array.isArray(v.shown.value) ? v.shown.value.map(String) : v.shown.value != null ? [String(v.shown.value)] : []);
      const list = multiple
        ? `<div class="options">${options
            .map(
              (o, i) =>
                `<label for="value-${i}"><input type="checkbox" id="value-${i}" name="value" value="${e(o.value)}"${picked.has(o.value) ? ' checked' : ''}> <span dir="auto">${e(o.label)}</span></label>`,
            )
            .join('')}</div>`
        : radios('value', 'value', options, (o) => picked.has(o), 'options');
      const fallback = step.type === 'location' ? t.locationDefaultTitle : frame.surveyName || '';
      const hint = multiple ? `<p class="hint" id="hint-${e(step.id)}">${e(t.chooseAll)}</p>` : '';
      controls = `<fieldset${describedBy('value', multiple ? `hint-${step.id}` : undefined)}${errorFor('value') ? ' class="invalid"' : ''}>
<legend><h1><span dir="auto">${e(title || fallback)}</span>${requiredMark}</h1></legend>${bodyHtml}${hint}
${errorLine('value')}${list}
</fieldset>`;
      break;
    }
    case 'items': {
      // One radio group per dish (lines of the same menu item asked once), the dish as its legend.
      heading = `<h1 dir="auto">${e(title || t.itemsDefaultTitle)}</h1>${bodyHtml}`;
      const thumbs = itemRatings(step).length === 2;
      const options = thumbs
        ? [
            { value: '5', label: `👍 ${t.thumbsUp}` },
            { value: '1', label: `👎 ${t.thumbsDown}` },
          ]
        : itemRatings(step).map((n) => ({ value: String(n), label: String(n) }));
      controls = (v.dishes ?? [])
        .map((dish) => {
          const key = `i-${dish.menuItem}`;
          const hintId = `hint-${key}`;
          const current = v.shown.items?.[dish.menuItem];
          const hint = [dish.quantity > 1 ? format(t.itemQuantity, { quantity: dish.quantity }) : '', thumbs ? '' : format(t.scaleHint, { min: 1, max: 5 })]
            .filter(Boolean)
            .join(' · ');
          return `<fieldset${describedBy(key, hint ? hintId : undefined)}${errorFor(key) ? ' class="invalid"' : ''}>
<legend><span dir="auto">${e(dish.name)}</span>${requiredMark}</legend>
${hint ? `<p class="hint" id="${e(hintId)}">${e(hint)}</p>` : ''}
${errorLine(key)}${radios(`item-${dish.menuItem}`, key, options, (o) => String(current ?? '') === o, 'scale')}
</fieldset>`;
        })
        .join('\n');
      break;
    }
    case 'info':
      heading = `<h1 dir="auto">${e(title || frame.surveyName || '')}</h1>${bodyHtml}`;
      controls = '';
      break;
    default: {
      // text and contact: one field, long or short.
      const max = typeof step.validation?.maxLength === 'number' ? ` maxlength="${e(step.validation.maxLength)}"` : ' maxlength="5000"';
      const value = v.shown.value == null ? '' : String(v.shown.value);
      const input = isLongText(step)
        ? `<textarea id="value" name="value"${max}${describedBy('value', body ? `body-${step.id}` : undefined)}>${e(value)}</textarea>`
        : `<input id="value" name="value" type="${isNumberText(step) ? 'number' : step.inputType === 'email' ? 'email' : step.inputType === 'tel' ? 'tel' : 'text'}"${max} value="${e(value)}"${describedBy('value', body ? `body-${step.id}` : undefined)}>`;
      controls = `<div${errorFor('value') ? ' class="invalid"' : ''}>
<h1><label for="value"><span dir="auto">${e(title || frame.surveyName || '')}</span>${requiredMark}</label></h1>${bodyHtml}
${errorLine('value')}${input}
</div>`;
    }
  }

  const summary = v.errors.length
    ? `<div class="error-summary" role="alert" aria-labelledby="error-summary-title" tabindex="-1" id="error-summary">
<h2 id="error-summary-title">${e(t.errorSummaryTitle)}</h2>
<ul>${v.errors.map((x) => `<li><a href="#${e(x.anchor)}">${e(x.message)}</a></li>`).join('')}</ul>
</div>`
    : '';
  const progressText = format(t.progress, { current: v.index + 1, total: v.total });
  const isLast = v.index + 1 >= v.total;
  return layout(
    frame,
    `${v.errors.length ? 'Error: ' : ''}${title || frame.surveyName || ''} (${progressText})`,
    `<p class="progress" id="progress-text">${e(progressText)}</p>
<progress max="${v.total}" value="${v.index}" aria-labelledby="progress-text"></progress>
${summary}
<form method="post" action="${e(v.action)}" novalidate>
<input type="hidden" name="csrf" value="${e(v.csrf)}">
<input type="hidden" name="step" value="${e(step.id)}">
<div class="hp" aria-hidden="true"><label for="website">${e(t.honeypotLabel)}</label><input id="website" name="website" type="text" tabindex="-1" autocomplete="off"></div>
${heading}
${controls}
<div class="actions"><button type="submit">${e(isLast ? t.submit : t.next)}</button>${v.backHref ? `<a href="${e(v.backHref)}">${e(t.back)}</a>` : ''}</div>
</form>`,
  );
}
