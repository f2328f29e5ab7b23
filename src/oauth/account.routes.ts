import type Router from '@koa/router';
import type { Context } from 'koa';
import { AppError, type ErrorDetail } from '../shared/errors.js';
import { sendHtml } from '../http/html.js';
import { normaliseEmail, User } from '../modules/user/index.js';
import { PORTAL_CLIENT_ID, SESSION_TTL_S, credentialsActingFor } from '../modules/oauth/index.js';
import {
  confirmEmail,
  resendVerification,
  signUp,
  viewConfirmation,
  type SignUpInput,
  requestPasswordReset,
  resetPassword,
  acceptInvitation,
  viewInvitation,
  findLink,
  type LinkProblem,
} from '../modules/account/index.js';
import { errorPage } from './authorize.pages.js';
import {
  checkEmailPage,
  confirmEmailPage,
  forgotPasswordPage,
  invitationPage,
  mailNotSentPage,
  messagePage,
  newPasswordPage,
  signUpPage,
} from './account.pages.js';
import { canSendMail } from '../config.js';
import { SESSION_COOKIE, cookieOptions, csrfToken, csrfValid, secureHeaders } from './authorize.routes.js';
import { accountRequests, signInFailures } from './sign-in.limit.js';
import type { OAuthDeps } from './oauth.deps.js';

const PROBLEM_TEXT: Record<LinkProblem, { status: number; message: string }> = {
  unknown: { status: 404, message: 'This link is not valid: it may be mistyped or cut short. Copy the whole link from the e-mail, or ask for a new one.' },
  used: { status: 410, message: 'This link has been used already: each link works once.' },
  expired: { status: 410, message: 'This link has expired. Ask for a new one.' },
  revoked: { status: 410, message: 'This invitation was withdrawn by the business. Ask its owner to invite you again.' },
};

const str = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * Where sign-up returns to: a partner's authorization request on this server (its state lives with the partner).
 * The portal's own request is not kept: its PKCE verifier lives in the tab that started it, perhaps not the one the
 * e-mail link opens, so the portal starts afresh instead.
 */
function continueTarget(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || !raw.startsWith('/oauth/authorize?') || raw.length > 4000) return undefined;
  const query = new URLSearchParams(raw.slice('/oauth/authorize?'.length));
  const client = query.get('clientId') ?? query.get('client_id');
  return client && client !== PORTAL_CLIENT_ID ? raw : undefined;
}

/** GET and POST of the account pages: sign-up, e-mail verification, password reset, invitations (docs/accounts.md). */
export function accountRoutes(router: Router, deps: OAuthDeps) {
  const publicUrl = deps.config.publicUrl;
  const portal = `${publicUrl.replace(/\/+$/, '')}/portal/`;
  const requests = accountRequests(deps.orm.em);
  const signIn = signInFailures(deps.orm.em);
  const mode = () => deps.config.signup;
  // No e-mail sender (neither SMTP_URL nor MAIL_OUTBOX=dev): the pages say so rather than "we have sent", the same
  // words for every address; what is asked is still queued, and sent once a sender is set (requeueUnsentAccountMail).
  const mailable = canSendMail(deps.config.feedback);

  const body = (ctx: Context) => (ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {};
  const page = (ctx: Context) => {
    secureHeaders(ctx);
    return csrfToken(ctx);
  };
  /** The double-submit check of every post here; false when it answered the refusal. */
  const posted = (ctx: Context) => {
    if (csrfValid(ctx, body(ctx).csrf, publicUrl)) return true;
    sendHtml(
      ctx,
      403,
      errorPage({ title: 'Please try again', message: 'This form has expired or did not come from this site. Go back, reload the page and try again.' }),
    );
    return false;
  };
  const linkProblem = (ctx: Context, problem: LinkProblem) =>
    sendHtml(ctx, PROBLEM_TEXT[problem].status, errorPage({ title: 'This link cannot be used', message: PROBLEM_TEXT[problem].message }));
  /** Counts a request that sends mail; answers the 429 page (true) when the address is over its limit. */
  const throttled = async (ctx: Context, email: string, render: (message: string) => string): Promise<boolean> => {
    try {
      await requests.admit(normaliseEmail(email), ctx.ip);
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'rate_limited')) throw err;
      const wait = Number(err.headers?.['Retry-After'] ?? 1);
      ctx.set('Retry-After', String(wait));
      const minutes = Math.ceil(wait / 60);
      sendHtml(ctx, 429, render(`Too many requests from here. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`));
      return true;
    }
    await requests.failed(normaliseEmail(email), ctx.ip);
    return false;
  };
  const signInAndGo = async (ctx: Context, userId: string, to: string) => {
    const user = await deps.orm.em.fork().findOneOrFail(User, { id: userId }, { fields: ['sessionVersion'] });
    ctx.cookies.set(SESSION_COOKIE, await deps.tokens.signSession(user), cookieOptions(ctx, SESSION_TTL_S));
    ctx.status = 303;
    ctx.redirect(to);
  };
  const closed = (ctx: Context) =>
    sendHtml(
      ctx,
      404,
      errorPage({ title: 'Sign-up is closed', message: 'New accounts are created by invitation only here. Ask an owner of your business to invite you.' }),
    );

  router.get('/signup', (ctx) => {
    ctx.status = 303;
    ctx.redirect(`/oauth/signup${ctx.querystring ? `?${ctx.querystring}` : ''}`);
  });

  router.get('/oauth/signup', (ctx) => {
    const csrf = page(ctx);
    if (mode() !== 'open') return closed(ctx);
    sendHtml(ctx, 200, signUpPage({ csrf, continueTo: continueTarget(ctx.query.continue), mailable }));
  });

  router.post('/oauth/signup', async (ctx) => {
    const csrf = page(ctx);
    if (mode() !== 'open') return closed(ctx);
    if (!posted(ctx)) return;
    const b = body(ctx);
    // A password posted here (an older form had the field) is ignored: the owner of the address chooses it on confirming.
    const input: SignUpInput = { name: str(b.name), email: str(b.email), businessName: str(b.businessName), timeZone: str(b.timeZone) };
    const continueTo = continueTarget(b.continue);
    const values = { ...input };
    const again = (errors: ErrorDetail[]) => signUpPage({ csrf, continueTo, values, errors, mailable });
    if (await throttled(ctx, input.email, (message) => again([{ field: 'email', message }]))) return;
    try {
      await signUp(deps.orm.em.fork(), input, deps.services.sending.settings, continueTo);
    } catch (err) {
      if (err instanceof AppError && err.code === 'validation_failed') return sendHtml(ctx, 400, again(err.details ?? []));
      throw err;
    }
    // The same page whether the address had an account or not: only its owner's inbox tells.
    if (!mailable)
      return sendHtml(
        ctx,
        200,
        mailNotSentPage({ what: `Your sign-up with ${normaliseEmail(input.email)} is recorded: its confirmation link goes to that address by e-mail.` }),
      );
    sendHtml(ctx, 200, checkEmailPage({ csrf, email: normaliseEmail(input.email) }));
  });

  router.get('/oauth/verify', async (ctx) => {
    const csrf = page(ctx);
    const found = await viewConfirmation(deps.orm.em.fork(), ctx.query.token);
    if ('problem' in found) return linkProblem(ctx, found.problem);
    sendHtml(ctx, 200, confirmEmailPage({ csrf, token: str(ctx.query.token), email: found.user.email, name: found.user.name ?? '' }));
  });

  router.post('/oauth/verify', async (ctx) => {
    const csrf = page(ctx);
    if (!posted(ctx)) return;
    const b = body(ctx);
    const token = str(b.token);
    let done;
    try {
      done = await confirmEmail(deps.orm.em.fork(), token, { name: str(b.name), password: str(b.password) });
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'validation_failed')) throw err;
      const found = await viewConfirmation(deps.orm.em.fork(), token);
      if ('problem' in found) return linkProblem(ctx, found.problem);
      return sendHtml(ctx, 400, confirmEmailPage({ csrf, token, email: found.user.email, name: str(b.name), errors: err.details ?? [] }));
    }
    if ('problem' in done) return linkProblem(ctx, done.problem);
    await signInAndGo(ctx, done.user, done.continueTo ?? portal);
  });

  router.post('/oauth/verify/resend', async (ctx) => {
    page(ctx);
    if (!posted(ctx)) return;
    const email = str(body(ctx).email);
    const answer = (message: string) => messagePage({ title: 'Check your e-mail', message });
    if (await throttled(ctx, email, answer)) return;
    await resendVerification(deps.orm.em.fork(), email, deps.services.sending.settings);
    if (!mailable)
      return sendHtml(
        ctx,
        200,
        mailNotSentPage({ what: `If ${normaliseEmail(email)} has an account waiting for confirmation, a new link goes to it by e-mail.` }),
      );
    sendHtml(ctx, 200, answer(`If ${normaliseEmail(email)} has an account waiting for confirmation, we have sent it a new link.`));
  });

  router.get('/oauth/password/forgot', (ctx) => {
    sendHtml(ctx, 200, forgotPasswordPage({ csrf: page(ctx), mailable }));
  });

  router.post('/oauth/password/forgot', async (ctx) => {
    const csrf = page(ctx);
    if (!posted(ctx)) return;
    const email = normaliseEmail(str(body(ctx).email));
    if (!email || email.length > 320)
      return sendHtml(
        ctx,
        400,
        forgotPasswordPage({ csrf, email, errors: [{ field: 'email', message: 'Enter the e-mail address of your account' }], mailable }),
      );
    if (await throttled(ctx, email, (message) => forgotPasswordPage({ csrf, email, errors: [{ field: 'email', message }], mailable }))) return;
    await requestPasswordReset(deps.orm.em.fork(), email, deps.services.sending.settings);
    if (!mailable) return sendHtml(ctx, 200, mailNotSentPage({ what: `If ${email} has an account, a link to choose a new password goes to it by e-mail.` }));
    sendHtml(
      ctx,
      200,
      messagePage({
        title: 'Check your e-mail',
        message: `If ${email} has an account, we have sent it a link to choose a new password. The link works once, for 30 minutes.`,
      }),
    );
  });

  router.get('/oauth/password/reset', async (ctx) => {
    const csrf = page(ctx);
    const found = await findLink(deps.orm.em.fork(), 'reset', ctx.query.token);
    if (found.problem) return linkProblem(ctx, found.problem);
    sendHtml(ctx, 200, newPasswordPage({ csrf, token: str(ctx.query.token) }));
  });

  router.post('/oauth/password/reset', async (ctx) => {
    const csrf = page(ctx);
    if (!posted(ctx)) return;
    const token = str(body(ctx).token);
    let done;
    try {
      done = await resetPassword(deps.orm.em.fork(), token, str(body(ctx).password));
      if ('problem' in done) return linkProblem(ctx, done.problem);
    } catch (err) {
      if (err instanceof AppError && err.code === 'validation_failed') return sendHtml(ctx, 400, newPasswordPage({ csrf, token, errors: err.details ?? [] }));
      throw err;
    }
    // What the new password does not end, said where the person is (the reset mail says it too).
    const left = await credentialsActingFor(deps.orm.em.fork(), done.user);
    const signedOut = 'Your new password is saved, and every device that was signed in is signed out.';
    if (!left.length) return sendHtml(ctx, 200, messagePage({ title: 'Password changed', message: signedOut, link: { href: portal, text: 'Sign in' } }));
    const names = left.map((c) => `${c.name} (${c.business.name})`).join(', ');
    const message = `${signedOut} The apps holding the secret of an API credential you created still act for you: ${names}. If someone else may have used your account, rotate their secrets.`;
    sendHtml(
      ctx,
      200,
      messagePage({ title: 'Password changed', message, link: { href: `${portal}credentials`, text: 'Sign in and review your API credentials' } }),
    );
  });

  router.get('/oauth/invitation', async (ctx) => {
    const csrf = page(ctx);
    const view = await viewInvitation(deps.orm.em.fork(), ctx.query.token);
    if ('problem' in view) return linkProblem(ctx, view.problem);
    if (!view.hasAccount && mode() === 'off') return closed(ctx);
    const { invitation } = view;
    sendHtml(
      ctx,
      200,
      invitationPage({
        csrf,
        token: str(ctx.query.token),
        businessName: view.businessName,
        role: invitation.role,
        email: invitation.email,
        hasAccount: view.hasAccount,
      }),
    );
  });

  router.post('/oauth/invitation', async (ctx) => {
    const csrf = page(ctx);
    if (!posted(ctx)) return;
    const b = body(ctx);
    const token = str(b.token);
    const view = await viewInvitation(deps.orm.em.fork(), token);
    if ('problem' in view) return linkProblem(ctx, view.problem);
    if (!view.hasAccount && mode() === 'off') return closed(ctx);
    const again = (status: number, errors: ErrorDetail[]) =>
      sendHtml(
        ctx,
        status,
        invitationPage({
          csrf,
          token,
          businessName: view.businessName,
          role: view.invitation.role,
          email: view.invitation.email,
          hasAccount: view.hasAccount,
          name: str(b.name),
          errors,
        }),
      );
    const password = str(b.password).slice(0, 1025);
    // Signing in to accept is a sign-in: the sign-in page's throttle counts its wrong passwords.
    let admission;
    if (view.hasAccount) {
      try {
        admission = await signIn.admit(view.invitation.email, ctx.ip);
      } catch (err) {
        if (!(err instanceof AppError && err.code === 'rate_limited')) throw err;
        const wait = Number(err.headers?.['Retry-After'] ?? 1);
        ctx.set('Retry-After', String(wait));
        return again(429, [{ field: 'password', message: `Too many failed attempts. Try again in ${Math.ceil(wait / 60)} minutes.` }]);
      }
    }
    let done;
    try {
      done = await acceptInvitation(deps.orm.em.fork(), token, { password, name: str(b.name) });
    } catch (err) {
      if (err instanceof AppError && err.code === 'validation_failed') return again(400, err.details ?? []);
      throw err;
    }
    if ('wrongPassword' in done) {
      await signIn.failed(view.invitation.email, ctx.ip);
      return again(401, [{ field: 'password', message: 'Wrong password.' }]);
    }
    if ('problem' in done) return linkProblem(ctx, done.problem);
    await signIn.succeeded(admission);
    await signInAndGo(ctx, done.user, portal);
  });
}
