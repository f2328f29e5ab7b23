import { escapeHtml, htmlPage } from './html.js';
import type { DevOutboxMessage } from '../modules/dev-outbox/index.js';

/** The dev outbox page (MAIL_OUTBOX=dev): server-rendered, no script, readable on a phone. */

const STYLE = `
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; padding: 0 .75rem; background: #f4f5f7; color: #1d2330; }
  main { max-width: 48rem; margin: 1.5rem auto; }
  h1 { font-size: 1.4rem; margin: 0 0 .5rem; }
  article { background: #fff; border-radius: 12px; box-shadow: 0 1px 4px rgba(0,0,0,.08); padding: 1rem; margin: 1rem 0; }
  article h2 { font-size: 1.1rem; margin: 0 0 .5rem; overflow-wrap: anywhere; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .75rem; margin: 0 0 .75rem; font-size: .95rem; }
  dt { font-weight: 600; color: #5b6475; } dd { margin: 0; overflow-wrap: anywhere; }
  .text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; font: inherit; }
  a { color: #2952cc; } .muted { color: #5b6475; }
`;

const URL_IN_TEXT = /https?:\/\/[^\s<>"']+[^\s<>"'.,;:!?)\]]/g;

/** The text, escaped, with each web address in it a link. */
function linkified(text: string): string {
  let html = '';
  let at = 0;
  for (const match of text.matchAll(URL_IN_TEXT)) {
    html += escapeHtml(text.slice(at, match.index));
    html += `<a href="${escapeHtml(match[0])}">${escapeHtml(match[0])}</a>`;
    at = match.index + match[0].length;
  }
  return html + escapeHtml(text.slice(at));
}

const page = (title: string, body: string): string => htmlPage(title, STYLE, body);

function message(m: DevOutboxMessage, i: number): string {
  const sms = m.channel === 'sms';
  const title = sms ? `Text message to ${m.recipient}` : (m.subject ?? '(no subject)');
  const at = m.createdAt.toISOString();
  return `<article aria-labelledby="m${i}">
<h2 id="m${i}">${escapeHtml(title)}</h2>
<dl>
<dt>${sms ? 'Channel' : 'From'}</dt><dd>${escapeHtml(sms ? 'SMS' : m.sender)}</dd>
<dt>To</dt><dd>${escapeHtml(m.recipient)}</dd>
<dt>Kept at</dt><dd><time datetime="${at}">${escapeHtml(at.replace('T', ' ').slice(0, 19))} UTC</time></dd>
</dl>
<p class="text">${linkified(m.body)}</p>
</article>`;
}

export function devOutboxPage(messages: DevOutboxMessage[], limit: number): string {
  const list = messages.length
    ? messages.map(message).join('\n')
    : '<p role="status">Nothing yet. Sign up, post an order through a flow or answer a survey: what would be sent shows here.</p>';
  return page(
    'Dev outbox',
    `<h1>Dev outbox</h1>
<p class="muted">MAIL_OUTBOX=dev: every e-mail and text this installation would send is kept here instead, newest first (the last ${limit}). Reload to see new ones.</p>
${list}`,
  );
}

export function devOutboxOffPage(): string {
  return page(
    'The dev outbox is off',
    `<h1>The dev outbox is off</h1>
<p>Mail is kept here only when the service runs with MAIL_OUTBOX=dev (never with NODE_ENV=production), for example:</p>
<p><code>NODE_ENV=development MAIL_OUTBOX=dev npm start</code></p>`,
  );
}
