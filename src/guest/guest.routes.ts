import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { AppError, type ErrorDetail } from '../shared/errors.js';
import { pageHeaders, postFromOwnPages, sendHtml } from '../http/html.js';
import { guestFailurePage } from './guest.failure.js';
import {
  type AnswerInput,
  answerStep,
  findDeviceResponse,
  guestDishes,
  linkTargets,
  openGuestSurvey,
  orderAnswered,
  resumeStep,
  visibleSteps,
  type GuestSurvey,
  type OrderDish,
  type SurveyLink,
} from '../modules/submission/index.js';
import type { SurveyStep } from '../modules/survey/index.js';
import { NotifiedMemo } from '../kit/signals/notified.memo.js';
import { SURVEY_PAGES_CHANNEL, readBrand } from '../modules/business/index.js';
import type { ReadRouting } from '../kit/replicas/read.routing.js';
import type { Services } from '../kit/graphql/context.js';
import { format } from './messages/index.js';
import {
  isMultipleChoice,
  isNumberText,
  GUEST_CSP,
  guestCsp,
  messagePage,
  stepPage,
  thanksPage,
  type FieldError,
  type Frame,
  type Shown,
} from './guest.pages.js';
import { csrfFor, csrfMatches, GuestSessions, surveyPath } from './guest.session.js';
import { first, frameFor, urlWith } from './guest.frame.js';
import { GuestSessionKeys } from '../modules/guest-session/index.js';
import { limitHeaders, refusal, type Limiter } from '../http/rate-limit/limiter.js';
import { addressGroup } from '../http/client-address.js';

/**
 * The guest's door (issue 12): GET and POST /survey/{business}/{survey}, one step per screen, post/redirect/get.
 * Each route reads: parse the link and the form → check the session and CSRF → call the submission module → render.
 */
const KNOWN_PARAMS = new Set(['custom.customOrderId', 'custom.customLocationId', 'location:metadata', 'lang', 'ch', 'step']);

const secureHeaders = (ctx: Context) => pageHeaders(ctx, GUEST_CSP);

function parseLink(ctx: Context): SurveyLink {
  const q = ctx.query;
  const extra: Record<string, string> = {};
  for (const [key, value] of Object.entries(q)) {
    const v = first(value);
    if (!KNOWN_PARAMS.has(key) && v !== undefined) extra[key] = v;
  }
  return {
    customOrderId: first(q['custom.customOrderId']),
    customLocationId: first(q['custom.customLocationId']),
    locationMetadata: first(q['location:metadata']),
    lang: first(q.lang),
    channel: first(q.ch),
    extra,
  };
}

/** The posted form as the module's answer: numbers where the step takes numbers, lists for multiple choice. */
function answerFrom(step: SurveyStep, body: Record<string, unknown>): AnswerInput {
  const text = (v: unknown) => (typeof v === 'string' ? v.trim() : Array.isArray(v) ? String(v[0] ?? '').trim() : '');
  const number = (v: string) => (/^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v);
  switch (step.type) {
    case 'metrics': {
      const ratings: Record<string, unknown> = {};
      for (const id of step.metricIds) {
        const v = text(body[`rating-${id}`]);
        if (v) ratings[id] = number(v);
      }
      return { step: step.id, ratings: Object.keys(ratings).length ? ratings : undefined };
    }
    case 'nps': {
      const v = text(body.value);
      return { step: step.id, value: v ? number(v) : undefined };
    }
    case 'choice': {
      if (isMultipleChoice(step)) {
        const list = (Array.isArray(body.value) ? body.value : body.value == null ? [] : [body.value]).map(String).filter(Boolean);
        return { step: step.id, value: list.length ? list : undefined };
      }
      return { step: step.id, value: text(body.value) || undefined };
    }
    case 'items': {
      // One radio group per dish, named `item-<menu item id>`.
      const items: Record<string, unknown> = {};
      for (const [name, value] of Object.entries(body)) {
        const v = name.startsWith('item-') ? text(value) : '';
        if (v) items[name.slice(5)] = number(v);
      }
      return { step: step.id, items: Object.keys(items).length ? items : undefined };
    }
    case 'info':
      return { step: step.id };
    default: {
      const v = text(body.value);
      return { step: step.id, value: v ? (isNumberText(step) ? number(v) : v) : undefined };
    }
  }
}

/** The module's details, in the guest's language, each linked to the control it concerns. */
function fieldErrors(frame: Frame, guest: GuestSurvey, step: SurveyStep, posted: AnswerInput, details: ErrorDetail[], dishes: OrderDish[] = []): FieldError[] {
  const { t } = frame;
  const out: FieldError[] = [];
  const add = (key: string, anchor: string, message: string) => {
    if (!out.some((x) => x.key === key)) out.push({ key, anchor, message });
  };
  for (const d of details) {
    const rating = /^answers\[0\]\.ratings\.(.+)$/.exec(d.field);
    const item = /^answers\[0\]\.items\.(.+)$/.exec(d.field);
    if (item) {
      add(`i-${item[1]}`, `i-${item[1]}-0`, t.errorInvalid);
    } else if (d.field === 'answers[0].items') {
      for (const dish of dishes) {
        if (posted.items?.[dish.menuItem] === undefined) add(`i-${dish.menuItem}`, `i-${dish.menuItem}-0`, format(t.errorRateMetric, { metric: dish.name }));
      }
    } else if (rating) {
      add(`r-${rating[1]}`, `r-${rating[1]}-0`, t.errorInvalid);
    } else if (d.field === 'answers[0].ratings') {
      for (const id of step.metricIds) {
        if (posted.ratings?.[id] === undefined) add(`r-${id}`, `r-${id}-0`, format(t.errorRateMetric, { metric: guest.metrics.get(id)?.name ?? id }));
      }
    } else {
      const radio = ['nps', 'choice', 'location'].includes(step.type);
      add('value', radio ? 'value-0' : 'value', posted.value === undefined ? t.errorRequired : t.errorInvalid);
    }
  }
  return out;
}

export function guestRoutes(deps: { orm: MikroORM; logger: Logger; publicUrl: string; limiter: Limiter; services: Services; reads?: ReadRouting }) {
  const router = new Router();
  const limiter = deps.limiter;
  // Until its LISTEN connection is up, the memo reads the database for every request: no need to wait for it.
  // Its reads (the survey, the brand) go to a replica when one is usable; the guest's own response, on `em` below, never.
  const memo = new NotifiedMemo(deps.orm, deps.logger, { channels: [SURVEY_PAGES_CHANNEL], reads: deps.reads, name: 'survey page memo' });
  void memo.start();
  const sessions = new GuestSessions(new GuestSessionKeys(deps.orm.em));

  /** The survey, or the page that says why there is none (404 unknown or draft, 410 closed). */
  const load = async (ctx: Context) => {
    secureHeaders(ctx);
    const { business, survey } = ctx.params as { business: string; survey: string };
    const path = surveyPath(business, survey);
    const state = await memo.get(`survey:${business}/${survey}`, (reader) => openGuestSurvey(reader, business, survey));
    if (state.state === 'missing') {
      const frame = frameFor(ctx, path);
      sendHtml(ctx, 404, messagePage(frame, frame.t.notFoundTitle, frame.t.notFoundBody));
      return null;
    }
    // The business's face: its name, logo and colour (the colour's style allowed by the page's policy).
    const brand = await memo.get(`brand:${business}`, (reader) => readBrand(reader, business));
    if (brand?.color) ctx.set('Content-Security-Policy', guestCsp(brand));
    const frame = frameFor(ctx, path, { surveyName: state.survey.name, brand, languages: state.survey.languages });
    if (state.state === 'closed') {
      sendHtml(ctx, 410, messagePage(frame, frame.t.closedTitle, frame.t.closedBody));
      return null;
    }
    return { guest: state as GuestSurvey, path, frame };
  };

  const answered = (ctx: Context, frame: Frame, status = 200) => sendHtml(ctx, status, messagePage(frame, frame.t.answeredTitle, frame.t.answeredBody));

  router.get('/survey/:business/:survey', async (ctx) => {
    const loaded = await load(ctx);
    if (!loaded) return;
    const { guest, path, frame } = loaded;
    const link = parseLink(ctx);
    const device = await sessions.open(ctx, path);
    // A new guest's first view with a plain link reads nothing of the database: no EntityManager for it.
    let forked: EntityManager | undefined;
    const em = () => (forked ??= deps.orm.em.fork());
    const response = device.fromCookie ? await findDeviceResponse(em(), guest.survey.business, guest.survey.id, device.id) : null;
    if (response?.status === 'completed') return answered(ctx, frame);
    // Checked when the link is opened, on any device, before anything is stored.
    const targets = !response && (link.customOrderId || link.locationMetadata) ? await linkTargets(em(), guest.survey.business, link) : null;
    if (targets && (await orderAnswered(em(), guest.survey.business, guest.survey.id, targets.order))) return answered(ctx, frame);

    const locationKnown = response ? response.location != null : targets?.location != null;
    const order = response ? response.order : targets?.order;
    const dishes = order ? await guestDishes(em(), guest, order) : [];
    const shown = visibleSteps(guest, response?.answers ?? [], link, locationKnown, deps.logger, dishes.length > 0);
    const asked = first(ctx.query.step);
    const step = shown.find((s) => s.id === asked) ?? resumeStep(guest, response, link, locationKnown, deps.logger, dishes.length > 0);
    if (!step)
      return sendHtml(
        ctx,
        200,
        thanksPage(frame, { text: guest.survey.closingText ?? undefined, reviewUrl: guest.survey.reviewUrl ?? frame.brand?.reviewUrl ?? undefined }),
      );
    const index = shown.findIndex((s) => s.id === step.id);
    const earlier = response?.answers.find((a) => a.step === step.id);
    sendHtml(ctx, 200, render(ctx, loaded, step, shown, index, csrfFor(device), [], earlier ?? {}, dishes));
  });

  function render(
    ctx: Context,
    loaded: { guest: GuestSurvey; path: string; frame: Frame },
    step: SurveyStep,
    shown: SurveyStep[],
    index: number,
    csrf: string,
    errors: FieldError[],
    values: Shown,
    dishes: OrderDish[] = [],
  ) {
    const { guest, path, frame } = loaded;
    return stepPage(frame, {
      step,
      index: Math.max(0, index),
      total: shown.length,
      action: urlWith(ctx, path, { step: null }),
      csrf,
      backHref: index > 0 ? urlWith(ctx, path, { step: shown[index - 1].id }) : undefined,
      metrics: guest.metrics,
      locations: guest.locations,
      dishes,
      errors,
      shown: values,
    });
  }

  router.post('/survey/:business/:survey', async (ctx) => {
    const loaded = await load(ctx);
    if (!loaded) return;
    const { guest, path, frame } = loaded;
    const body = ((ctx.request as unknown as { body?: Record<string, unknown> }).body ?? {}) as Record<string, unknown>;
    const device = await sessions.read(ctx);
    if (!device || !csrfMatches(device, body.csrf) || !postFromOwnPages(ctx, deps.publicUrl)) {
      return sendHtml(ctx, 403, messagePage(frame, frame.t.expiredTitle, frame.t.expiredBody));
    }
    const thanks = urlWith(ctx, `${path}/thanks`, { step: null });
    // A filled honeypot is a robot: it is thanked like anyone, and nothing is stored.
    if (typeof body.website === 'string' && body.website !== '') {
      ctx.status = 303;
      return ctx.redirect(thanks);
    }
    const step = guest.steps.find((s) => s.id === body.step);
    if (!step) {
      ctx.status = 303;
      return ctx.redirect(urlWith(ctx, path, { step: null }));
    }
    const link = parseLink(ctx);
    const answer = answerFrom(step, body);
    // At most 10 new responses per 10 minutes per address (an IPv6 /64) and survey (src/http/rate-limit: shared with REDIS_URL).
    const admit = async () => {
      const verdict = await limiter.take(`${addressGroup(ctx.ip)}|${guest.survey.id}`);
      if (!verdict.allowed) throw refusal([verdict], 'Too many new responses from this address');
      for (const [name, value] of Object.entries(limitHeaders([verdict]))) ctx.set(name, value);
    };
    let outcome;
    try {
      outcome = await answerStep(deps.orm.em.fork(), guest, {
        sessionId: device.id,
        startedAt: device.startedAt,
        step: step.id,
        answer,
        link,
        admit,
        log: deps.logger,
        completions: deps.services.completions,
      });
    } catch (err) {
      if (err instanceof AppError && err.code === 'conflict') return answered(ctx, frame, 409);
      if (err instanceof AppError && err.code === 'rate_limited') {
        const wait = Number(err.headers?.['Retry-After']);
        for (const [name, value] of Object.entries(err.headers ?? {})) ctx.set(name, value);
        return sendHtml(ctx, 429, messagePage(frame, frame.t.rateLimitedTitle, format(frame.t.rateLimitedBody, { minutes: Math.ceil(wait / 60) })));
      }
      throw err;
    }
    if (outcome.kind === 'invalid') {
      const errors = fieldErrors(frame, guest, step, answer, outcome.details, outcome.dishes);
      const index = outcome.shown.findIndex((s) => s.id === step.id);
      return sendHtml(ctx, 422, render(ctx, loaded, step, outcome.shown, index, csrfFor(device), errors, answer, outcome.dishes));
    }
    ctx.status = 303;
    ctx.redirect(outcome.kind === 'next' ? urlWith(ctx, path, { step: outcome.step }) : thanks);
  });

  router.get('/survey/:business/:survey/thanks', async (ctx) => {
    const loaded = await load(ctx);
    if (!loaded) return;
    sendHtml(
      ctx,
      200,
      thanksPage(loaded.frame, {
        text: loaded.guest.survey.closingText ?? undefined,
        reviewUrl: loaded.guest.survey.reviewUrl ?? loaded.frame.brand?.reviewUrl ?? undefined,
      }),
    );
  });

  /** Everything else under /survey, and any failure there, is a page for a person, never JSON. */
  const pages: Middleware = async (ctx, next) => {
    if (!ctx.path.startsWith('/survey/') && ctx.path !== '/survey') return next();
    try {
      await next();
      if (ctx.body == null) {
        secureHeaders(ctx);
        const frame = frameFor(ctx, ctx.path);
        sendHtml(ctx, 404, messagePage(frame, frame.t.notFoundTitle, frame.t.notFoundBody));
      }
    } catch (err) {
      secureHeaders(ctx);
      const frame = frameFor(ctx, ctx.path);
      if (err instanceof AppError && err.status < 500) {
        return sendHtml(ctx, err.status, messagePage(frame, frame.t.expiredTitle, frame.t.expiredBody));
      }
      guestFailurePage(ctx, err, frame, { logger: deps.logger, what: 'survey page failed', path: ctx.path });
    }
  };

  return { router, pages, stop: () => memo.stop() };
}
