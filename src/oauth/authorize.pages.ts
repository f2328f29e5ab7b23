import { SCOPE_DESCRIPTIONS } from '../modules/oauth/index.js';
import type { Scope } from '../auth/scopes.js';

import { escapeHtml, htmlPage } from '../http/html.js';

/** Server-rendered pages of the authorization endpoint: plain HTML forms, no JavaScript, readable on a phone. */

const STYLE = `
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; padding: 0 .75rem; background: #f4f5f7; color: #1d2330; }
  main { max-width: 26rem; margin: 2rem auto; padding: 1.5rem; background: #fff; border-radius: 12px; box-shadow: 0 1px 4px rgba(0,0,0,.08); }
  h1 { font-size: 1.3rem; margin-top: 0; }
  label { display: block; margin: .8rem 0 .2rem; font-weight: 600; }
  input[type=email], input[type=password], input[type=text], select { box-sizing: border-box; width: 100%; padding: .7rem; font-size: 1rem; border: 1px solid #b8bfcc; border-radius: 8px; }
  button { font-size: 1rem; padding: .75rem 1rem; border-radius: 8px; border: 1px solid #2952cc; background: #2952cc; color: #fff; width: 100%; margin-top: 1rem; cursor: pointer; }
  button.secondary { background: #fff; color: #2952cc; }
  button.link { background: none; border: none; color: #2952cc; padding: 0; width: auto; margin: 0; text-decoration: underline; font-size: .9rem; }
  .error { background: #fdecea; color: #8a1c12; padding: .7rem; border-radius: 8px; }
  ul { padding-left: 1.2rem; } li { margin: .3rem 0; } small, .muted { color: #5b6475; }
  .actions { display: flex; gap: .75rem; } .actions button { flex: 1; }
  .error a { color: #8a1c12; } .hint { font-size: .9rem; color: #5b6475; margin: .2rem 0 0; } .field-error { color: #8a1c12; font-size: .9rem; margin: .2rem 0 0; }
  .notice { background: #fff4e0; color: #5c3b00; padding: .7rem; border-radius: 8px; } .notice h2 { font-size: 1rem; margin: 0 0 .3rem; } .notice p { margin: .3rem 0; }
  nav.more { margin-top: 1.2rem; font-size: .95rem; } nav.more a { color: #2952cc; } nav.more p { margin: .4rem 0; }
`;

export const layout = (title: string, body: string): string => htmlPage(title, STYLE, body);

export function signInPage(p: {
  action: string;
  csrf: string;
  appName: string;
  email?: string;
  error?: string;
  signupHref?: string;
  forgotHref?: string;
}): string {
  return layout(
    'Sign in',
    `<h1>Sign in to continue to ${escapeHtml(p.appName)}</h1>
${p.error ? `<p class="error" role="alert">${escapeHtml(p.error)}</p>` : ''}
<form method="post" action="${escapeHtml(p.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(p.csrf)}">
<input type="hidden" name="action" value="signin">
<label for="email">E-mail</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(p.email ?? '')}">
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<nav class="more" aria-label="Other ways in">
${p.forgotHref ? `<p><a href="${escapeHtml(p.forgotHref)}">Forgot your password?</a></p>` : ''}
${p.signupHref ? `<p>New here? <a href="${escapeHtml(p.signupHref)}">Create an account</a></p>` : ''}
</nav>`,
  );
}

export function consentPage(p: {
  action: string;
  csrf: string;
  appName: string;
  businessName: string;
  userEmail: string;
  scopes: Scope[];
  /** Asked for but not allowed by the user's role: shown, never granted. */
  dropped?: { role: string; scopes: Scope[] };
}): string {
  return layout(
    `Allow ${p.appName}?`,
    `<h1>${escapeHtml(p.appName)} wants to access ${escapeHtml(p.businessName)}</h1>
<p>It will be able to:</p>
<ul>${p.scopes.map((s) => `<li>${escapeHtml(SCOPE_DESCRIPTIONS[s])} <small>(${escapeHtml(s)})</small></li>`).join('')}</ul>
${
  p.dropped?.scopes.length
    ? `<p id="dropped">It also asked for the following, which your role (${escapeHtml(p.dropped.role)}) does not allow; it will not get them:</p>
<ul aria-labelledby="dropped">${p.dropped.scopes.map((s) => `<li>${escapeHtml(SCOPE_DESCRIPTIONS[s])} <small>(${escapeHtml(s)})</small></li>`).join('')}</ul>`
    : ''
}
<form method="post" action="${escapeHtml(p.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(p.csrf)}">
<input type="hidden" name="action" value="consent">
<div class="actions">
<button type="submit" name="decision" value="deny" class="secondary">Deny</button>
<button type="submit" name="decision" value="allow">Allow</button>
</div>
</form>
${signedInAs(p)}`,
  );
}

export function businessChoicePage(p: {
  action: string;
  csrf: string;
  appName: string;
  userEmail: string;
  choices: { id: string; name: string; role: string }[];
}): string {
  return layout(
    'Choose a business',
    `<h1>Which business do you want to open in ${escapeHtml(p.appName)}?</h1>
<form method="post" action="${escapeHtml(p.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(p.csrf)}">
<input type="hidden" name="action" value="business">
${p.choices.map((c) => `<button type="submit" name="business" value="${escapeHtml(c.id)}" class="secondary">${escapeHtml(c.name)} <small>(${escapeHtml(c.role)})</small></button>`).join('\n')}
</form>
${signedInAs(p)}`,
  );
}

/** A form of one secondary button posting `fields` (and the CSRF token) to `action`. */
export function secondaryPost(action: string, csrf: string, fields: Record<string, string>, label: string): string {
  const hidden = Object.entries(fields).map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`);
  return `<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="csrf" value="${escapeHtml(csrf)}">
${hidden.join('\n')}
<button type="submit" class="secondary">${escapeHtml(label)}</button>
</form>`;
}

/** Who is signed in, with the way out: under every page that acts for a signed-in user. */
function signedInAs(p: { action: string; csrf: string; userEmail: string }): string {
  return `<form method="post" action="${escapeHtml(p.action)}">
<input type="hidden" name="csrf" value="${escapeHtml(p.csrf)}">
<input type="hidden" name="action" value="signout">
<p class="muted">Signed in as ${escapeHtml(p.userEmail)}. <button type="submit" class="link">Not you? Sign out</button></p>
</form>`;
}

export function errorPage(p: { title: string; message: string; signOut?: { action: string; csrf: string } }): string {
  return layout(
    p.title,
    `<h1>${escapeHtml(p.title)}</h1>
<p class="error" role="alert">${escapeHtml(p.message)}</p>
${p.signOut ? secondaryPost(p.signOut.action, p.signOut.csrf, { action: 'signout' }, 'Sign in as someone else') : ''}`,
  );
}
