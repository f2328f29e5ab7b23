import { escapeHtml } from '../http/html.js';
import type { ErrorDetail } from '../shared/errors.js';
import { PASSWORD_RULE } from '../modules/account/index.js';
import { layout, secondaryPost } from './authorize.pages.js';

/** The account pages (sign-up, verification, password reset, invitations): plain forms, no script, like sign-in. */

type Values = Record<string, string | undefined>;

/** The error summary at the top of a form: each problem a link to its field, announced at once. */
function errorSummary(errors: ErrorDetail[]): string {
  if (!errors.length) return '';
  return `<div class="error" role="alert" aria-labelledby="error-summary-title">
<p id="error-summary-title"><strong>There ${errors.length === 1 ? 'is a problem' : `are ${errors.length} problems`}</strong></p>
<ul>${errors.map((e) => `<li><a href="#${escapeHtml(e.field)}">${escapeHtml(e.message)}</a></li>`).join('')}</ul>
</div>`;
}

/** One labelled input, its hint and its error tied to it for screen readers. */
function field(p: {
  name: string;
  label: string;
  type: string;
  autocomplete: string;
  values?: Values;
  errors: ErrorDetail[];
  hint?: string;
  keep?: boolean;
}): string {
  const error = p.errors.find((e) => e.field === p.name);
  const described = [p.hint ? `${p.name}-hint` : '', error ? `${p.name}-error` : ''].filter(Boolean).join(' ');
  const value = p.keep === false ? '' : (p.values?.[p.name] ?? '');
  return `<label for="${p.name}">${escapeHtml(p.label)}</label>
${p.hint ? `<p class="hint" id="${p.name}-hint">${escapeHtml(p.hint)}</p>` : ''}
${error ? `<p class="field-error" id="${p.name}-error">${escapeHtml(error.message)}</p>` : ''}
<input id="${p.name}" name="${p.name}" type="${p.type}" autocomplete="${p.autocomplete}" required${described ? ` aria-describedby="${described}"` : ''}${error ? ' aria-invalid="true"' : ''} value="${escapeHtml(value)}">`;
}

const hidden = (name: string, value: string | undefined) => (value ? `<input type="hidden" name="${name}" value="${escapeHtml(value)}">` : '');

let zoneOptions: string[] | undefined;

function timeZoneSelect(selected: string | undefined, errors: ErrorDetail[]): string {
  zoneOptions ??= ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
  const chosen = selected || 'UTC';
  const error = errors.find((e) => e.field === 'timeZone');
  return `<label for="timeZone">Time zone</label>
<p class="hint" id="timeZone-hint">Where your business is: reports and quiet hours follow it. You can change it later.</p>
${error ? `<p class="field-error" id="timeZone-error">${escapeHtml(error.message)}</p>` : ''}
<select id="timeZone" name="timeZone" aria-describedby="timeZone-hint${error ? ' timeZone-error' : ''}">
${zoneOptions.map((z) => `<option${z === chosen ? ' selected' : ''}>${escapeHtml(z)}</option>`).join('')}
</select>`;
}

/** What the operator must set so that mail goes out, as the account pages tell whoever uses them. */
const SET_A_SENDER =
  'The operator of this installation must set SMTP_URL (an SMTP server to send through), or MAIL_OUTBOX=dev to try it on one machine (each message is then shown at /portal/dev/outbox).';

/**
 * Said before a form whose answer is an e-mail, when this installation has no e-mail sender: nobody waits for a link
 * that cannot come. It says nothing of any address.
 */
/**
 * A form's page: its heading, what leads to the form (`lead`, each line ending in a line break), the summary of the
 * form's problems, then the form; while there are problems the title says so first.
 */
function formPage(title: string, errors: ErrorDetail[], lead: string, form: string): string {
  return layout(errors.length ? `Error: ${title}` : title, `<h1>${escapeHtml(title)}</h1>\n${lead}${errorSummary(errors)}\n${form}`);
}

function noMailNotice(): string {
  // A heading, not a labelled region: a region named "E-mail ..." would answer for the E-mail field's label too.
  return `<div class="notice">
<h2>E-mail cannot be sent from this installation</h2>
<p>No e-mail sender is configured, so no link can reach your inbox for now. ${escapeHtml(SET_A_SENDER)}</p>
<p>What you ask for here is kept, and sent once a sender is set, while its link is still valid.</p>
</div>`;
}

/** The answer to a request for mail when no sender is configured: the same words whatever the address. */
export function mailNotSentPage(p: { what: string }): string {
  return layout(
    'E-mail cannot be sent yet',
    `<h1>E-mail cannot be sent yet</h1>
<p role="status">${escapeHtml(`${p.what} This installation has no e-mail sender configured, so nothing has been sent.`)}</p>
<p>${escapeHtml(SET_A_SENDER)} The message is then sent, if its link is still valid.</p>`,
  );
}

export function signUpPage(p: { csrf: string; continueTo?: string; values?: Values; errors?: ErrorDetail[]; mailable?: boolean }): string {
  const errors = p.errors ?? [];
  return formPage(
    'Create an account',
    errors,
    `${p.mailable === false ? noMailNotice() : ''}\n`,
    `<form method="post" action="/oauth/signup" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(p.csrf)}">
${hidden('continue', p.continueTo)}
${field({ name: 'name', label: 'Your name', type: 'text', autocomplete: 'name', values: p.values, errors })}
${field({ name: 'email', label: 'E-mail', type: 'email', autocomplete: 'email', values: p.values, errors, hint: 'We send a link to it: you choose your password when you open it.' })}
${field({ name: 'businessName', label: 'Business name', type: 'text', autocomplete: 'organization', values: p.values, errors })}
${timeZoneSelect(p.values?.timeZone, errors)}
<button type="submit">Create account</button>
</form>
<nav class="more" aria-label="Other ways in"><p>Already have an account? <a href="/portal/">Sign in</a></p></nav>`,
  );
}

/** A page that only says something (check your e-mail, done), with an optional way on. */
export function messagePage(p: { title: string; message: string; link?: { href: string; text: string } }): string {
  return layout(
    p.title,
    `<h1>${escapeHtml(p.title)}</h1>
<p role="status">${escapeHtml(p.message)}</p>
${p.link ? `<p><a href="${escapeHtml(p.link.href)}">${escapeHtml(p.link.text)}</a></p>` : ''}`,
  );
}

/**
 * After a sign-up (the same page whatever the address): where the link went, and a way to have it sent again.
 */
export function checkEmailPage(p: { csrf: string; email: string }): string {
  return layout(
    'Check your e-mail',
    `<h1>Check your e-mail</h1>
<p role="status">${escapeHtml(`We have sent a message to ${p.email}. Open the link in it to confirm your address and choose your password; it works for 24 hours.`)}</p>
<p class="muted">Nothing there after a few minutes? Look in the spam folder, or:</p>
${secondaryPost('/oauth/verify/resend', p.csrf, { email: p.email }, 'Send the link again')}`,
  );
}

/**
 * A confirmation link's page: the owner of the address chooses the password here (the sign-up form asks for none:
 * whoever filled it may not own the address). A form, not the link itself, since mail scanners fetch links.
 */
export function confirmEmailPage(p: { csrf: string; token: string; email: string; name?: string; errors?: ErrorDetail[] }): string {
  const errors = p.errors ?? [];
  return formPage(
    'Confirm your e-mail address',
    errors,
    `<p>Choose a password for the account of ${escapeHtml(p.email)} to finish.</p>\n`,
    `<form method="post" action="/oauth/verify" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(p.csrf)}">
<input type="hidden" name="token" value="${escapeHtml(p.token)}">
${field({ name: 'name', label: 'Your name', type: 'text', autocomplete: 'name', values: { name: p.name }, errors })}
${field({ name: 'password', label: 'Choose a password', type: 'password', autocomplete: 'new-password', errors, hint: PASSWORD_RULE, keep: false })}
<button type="submit">Confirm and continue</button>
</form>`,
  );
}

export function forgotPasswordPage(p: { csrf: string; email?: string; errors?: ErrorDetail[]; mailable?: boolean }): string {
  const errors = p.errors ?? [];
  return formPage(
    'Reset your password',
    errors,
    `${p.mailable === false ? noMailNotice() : ''}\n`,
    `<p>Enter the e-mail address of your account: we send it a link to choose a new password.</p>
<form method="post" action="/oauth/password/forgot" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(p.csrf)}">
${field({ name: 'email', label: 'E-mail', type: 'email', autocomplete: 'username', values: { email: p.email }, errors })}
<button type="submit">Send the link</button>
</form>`,
  );
}

export function newPasswordPage(p: { csrf: string; token: string; errors?: ErrorDetail[] }): string {
  const errors = p.errors ?? [];
  return formPage(
    'Choose a new password',
    errors,
    '',
    `<form method="post" action="/oauth/password/reset" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(p.csrf)}">
<input type="hidden" name="token" value="${escapeHtml(p.token)}">
${field({ name: 'password', label: 'New password', type: 'password', autocomplete: 'new-password', errors, hint: PASSWORD_RULE, keep: false })}
<button type="submit">Save the new password</button>
</form>
<p class="muted">Every device signed in to your account is signed out.</p>`,
  );
}

export function invitationPage(p: {
  csrf: string;
  token: string;
  businessName: string;
  role: string;
  email: string;
  hasAccount: boolean;
  name?: string;
  errors?: ErrorDetail[];
}): string {
  const errors = p.errors ?? [];
  return formPage(
    `Join ${p.businessName}`,
    errors,
    `<p>You are invited to join ${escapeHtml(p.businessName)} as <strong>${escapeHtml(p.role)}</strong>, as ${escapeHtml(p.email)}.</p>\n`,
    `<form method="post" action="/oauth/invitation" novalidate>
<input type="hidden" name="csrf" value="${escapeHtml(p.csrf)}">
<input type="hidden" name="token" value="${escapeHtml(p.token)}">
${
  p.hasAccount
    ? `<p>You already have an account: sign in to accept.</p>
${field({ name: 'password', label: 'Password', type: 'password', autocomplete: 'current-password', errors, keep: false })}
<button type="submit">Sign in and join</button>`
    : `${field({ name: 'name', label: 'Your name', type: 'text', autocomplete: 'name', values: { name: p.name }, errors })}
${field({ name: 'password', label: 'Choose a password', type: 'password', autocomplete: 'new-password', errors, hint: PASSWORD_RULE, keep: false })}
<button type="submit">Create account and join</button>`
}
</form>
${p.hasAccount ? '<nav class="more" aria-label="Other ways in"><p><a href="/oauth/password/forgot">Forgot your password?</a></p></nav>' : ''}`,
  );
}
