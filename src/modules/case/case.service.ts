import type { EntityManager } from '@mikro-orm/postgresql';
import { recordEvent, updateRecorded, type RecordedResource } from '../event/index.js';
import { findPage } from '../../kit/list/list.query.js';
import { findOwned } from '../../kit/resource/resource.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list/list.args.js';
import { Checks } from '../../shared/validation.js';
import { wordsOf } from '../../shared/keywords.js';
import { isId } from '../../shared/id.js';
import { Order, normaliseEmail, normalisePhone } from '../order/index.js';
import { Membership } from '../user/index.js';
import { Submission, type AnsweredSurvey } from '../submission/index.js';
import { SurveyStep } from '../survey/index.js';
import { enabledAlertRules, matchRules, type MatchedAnswers, type RuleMatch } from '../alert/index.js';
import { CASE_STATUSES, GuestCase, type CaseStatus } from './case.entity.js';
import type { CaseType } from './case.type.js';
import type { UpdateCaseInput } from './case.inputs.js';
import { recoveryMayWait } from './case-recovery.cache.js';
import { queueAlerts } from './case-alert.service.js';
import { ownedPresenter } from '../../kit/resource/owned.presenter.js';

const presentCase = ownedPresenter<GuestCase, CaseType>('case', {
  submissionId: 'submission',
  orderId: 'order?',
  locationId: 'location?',
  survey: 'survey?',
  rule: 'rule?',
  severity: 'severity',
  status: 'status',
  assignee: 'assignee?',
  reason: 'reason',
  guest: (c) => ({ name: c.guestName ?? null, email: c.guestEmail ?? null, phone: c.guestPhone ?? null }),
  openedAt: 'openedAt',
  firstReplyAt: 'firstReplyAt?',
  resolvedAt: 'resolvedAt?',
  recoveredAt: 'recoveredAt?',
  recoveredBy: (c) => (c.recoveredOrder ? { order: c.recoveredOrder, offer: c.recoveredOffer ?? null } : null),
});

/** Events and webhooks show relations as ids, in the API's field order. */
export function caseEventObject(c: GuestCase) {
  const { submissionId, orderId, locationId, ...rest } = presentCase(c);
  return {
    id: rest.id,
    object: rest.object,
    business: rest.business,
    submission: submissionId,
    order: orderId,
    location: locationId,
    survey: rest.survey,
    rule: rest.rule,
    severity: rest.severity,
    status: rest.status,
    assignee: rest.assignee,
    reason: rest.reason,
    guest: rest.guest,
    openedAt: rest.openedAt,
    firstReplyAt: rest.firstReplyAt,
    resolvedAt: rest.resolvedAt,
    recoveredAt: rest.recoveredAt,
    recoveredBy: rest.recoveredBy,
    createdAt: rest.createdAt,
    updatedAt: rest.updatedAt,
  };
}

export const findCase = (em: EntityManager, business: string, id: string, lock = false) =>
  findOwned(em, GuestCase, { kind: 'guestCase', label: 'Case', business, id, lock });

const recorded: RecordedResource<GuestCase, CaseType> = { resource: 'case', find: findCase, present: presentCase, eventObject: caseEventObject };

function listCases(em: EntityManager, business: string, args: ListArgsValue<object, OrderByValue>) {
  return findPage<GuestCase, CaseType>(em, GuestCase, { scope: { business }, args, present: presentCase });
}

/**
 * The answers a rule looks at: each rating with its metric's name and scale, each NPS score, each text. A dish rated
 * on an items step counts as a rating on its 1-to-5 scale, named after the dish (a thumbs-down is 1 of 5): "the
 * biryani 1 of 5" is as much an unhappy guest as "Food 1 of 5", so a rule's maxRating catches both.
 */
function answersOf(submission: Submission, survey: AnsweredSurvey): MatchedAnswers {
  const types = new Map(survey.steps.map((s) => [s.id, s.type]));
  const matched: MatchedAnswers = { location: submission.location ?? null, survey: submission.survey ?? null, ratings: [], nps: [], texts: [] };
  for (const answer of submission.answers) {
    const type = types.get(answer.step);
    if (type === 'metrics') {
      for (const [metric, rating] of Object.entries(answer.ratings ?? {})) {
        const known = survey.metrics.get(metric);
        if (known) matched.ratings.push({ metric, name: known.name, rating, scaleMax: known.scaleMax });
      }
    } else if (type === 'items') {
      for (const [menuItem, rating] of Object.entries(answer.items ?? {})) {
        if (typeof rating === 'number') matched.ratings.push({ metric: menuItem, name: survey.dishes?.get(menuItem) ?? 'A dish', rating, scaleMax: 5 });
      }
    } else if (type === 'nps' && typeof answer.value === 'number') matched.nps.push(answer.value);
    else if (type === 'text' && typeof answer.value === 'string') matched.texts.push(wordsOf(answer.value));
  }
  return matched;
}

/** Who answered: the order's customer, else what the guest wrote in a contact step (an e-mail address or a phone number). */
async function guestOf(tx: EntityManager, submission: Submission, survey: AnsweredSurvey) {
  const order = submission.order ? await tx.findOne(Order, { business: submission.business, id: submission.order }) : null;
  if (order) return { guestName: order.customerName ?? null, guestEmail: order.customerEmail ?? null, guestPhone: order.customerPhone ?? null };
  const contactSteps = new Set(survey.steps.filter((s) => s.type === 'contact').map((s) => s.id));
  const written = submission.answers.filter((a) => contactSteps.has(a.step) && typeof a.value === 'string').map((a) => a.value as string);
  return {
    guestName: null,
    guestEmail: written.map((v) => normaliseEmail(v)).find(Boolean) ?? null,
    guestPhone: written.map((v) => (v.includes('@') ? null : normalisePhone(v))).find(Boolean) ?? null,
  };
}

/**
 * Whether completing `submission` would open a case (one of its business's enabled alert rules matches): asked before
 * a completion is written, outside any transaction (the submission module's check, bound at start). A completion no
 * case follows is written alone; openCaseFor decides again in the completion's transaction otherwise.
 */
export async function caseMayOpen(em: EntityManager, submission: Submission, survey: AnsweredSurvey): Promise<boolean> {
  const rules = await enabledAlertRules(em, submission.business);
  return matchRules(rules, answersOf(submission, survey)).length > 0;
}

/**
 * Opens the case of a submission just completed in `tx` when one of its business's enabled alert rules matches, or
 * the built-in rule of illness words (the submission module's completion step, bound at start). The case is written
 * with the submission, and the unique constraint on its submission keeps it one.
 */
export async function openCaseFor(
  tx: EntityManager,
  submission: Submission,
  survey: AnsweredSurvey,
): Promise<{ opened: GuestCase; matches: RuleMatch[] } | null> {
  const rules = await enabledAlertRules(tx, submission.business);
  const matches = matchRules(rules, answersOf(submission, survey));
  if (!matches.length) return null;
  return { opened: await openCase(tx, submission, survey, matches), matches };
}

/**
 * Opens the case of a submission whose text answers' analyses the workers just stored in `tx`, when a rule on themes
 * or sentiment matches them (src/worker/text-analysis.runner.ts binds it). Nothing when the submission has a case
 * already (opened at completion, or by an earlier reading of the same answers): a case per submission, once.
 */
export async function openCaseForAnalysis(
  tx: EntityManager,
  business: string,
  submissionId: string,
  analyses: NonNullable<MatchedAnswers['analyses']>,
): Promise<GuestCase | null> {
  if (!analyses.length) return null;
  const submission = await tx.findOne(Submission, { business, id: submissionId });
  if (submission?.status !== 'completed') return null;
  const rules = (await enabledAlertRules(tx, submission.business)).filter((r) => r.when.themes?.length || r.when.sentiment);
  if (!rules.length || (await tx.count(GuestCase, { business, submission: submissionId }))) return null;
  const matches = matchRules(rules, { location: submission.location ?? null, survey: submission.survey ?? null, ratings: [], nps: [], texts: [], analyses });
  if (!matches.length) return null;
  const steps = submission.survey ? await tx.find(SurveyStep, { business, survey: submission.survey }) : [];
  return openCase(tx, submission, { steps, metrics: new Map() }, matches);
}

/** The case of `submission` that `matches` open (the first names its rule, severity and reason), its event and alerts. */
async function openCase(tx: EntityManager, submission: Submission, survey: AnsweredSurvey, matches: RuleMatch[]): Promise<GuestCase> {
  const [first] = matches;
  const now = new Date();
  const opened = tx.create(GuestCase, {
    business: submission.business,
    submission: submission.id,
    order: submission.order ?? null,
    location: submission.location ?? null,
    survey: submission.survey ?? null,
    rule: first.builtIn ? null : first.rule.id,
    severity: first.rule.severity,
    reason: first.reason.slice(0, 300),
    ...(await guestOf(tx, submission, survey)),
    openedAt: now,
    createdAt: now,
    updatedAt: now,
  });
  recordEvent(tx, submission.business, 'case.opened', caseEventObject(opened));
  recoveryMayWait(submission.business);
  // Durable: the alerts are jobs written with the case, sent by the case workers once this commits.
  await queueAlerts(tx, opened, matches);
  return opened;
}

/** Moving to a status stamps when it happened; moving back to open clears the resolution. */
function applyStatus(c: GuestCase, status: CaseStatus, now: Date) {
  if (status === c.status) return;
  c.status = status;
  if (status === 'resolved') c.resolvedAt = now;
  if (status === 'recovered') c.recoveredAt ??= now;
  if (status === 'open') c.resolvedAt = null;
}

function updateCase(em: EntityManager, business: string, id: string, input: UpdateCaseInput): Promise<CaseType> {
  return updateRecorded(em, recorded, business, id, async (c, tx) => {
    const checks = new Checks();
    if (input.status != null && !CASE_STATUSES.includes(input.status as CaseStatus)) checks.fail('status', `must be one of ${CASE_STATUSES.join(', ')}`);
    if (input.assignee != null) {
      const member = isId('membership', input.assignee) ? await tx.findOne(Membership, { id: input.assignee, business }) : null;
      if (!member) checks.fail('assignee', `'${input.assignee}' is not a member of this business`);
    }
    checks.throwIfAny();
    if (input.status != null) applyStatus(c, input.status as CaseStatus, new Date());
    if (input.assignee !== undefined) c.assignee = input.assignee;
  });
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver): cases are opened by answers, never created. */
export const crud = { list: listCases, find: findCase, present: presentCase, update: updateCase };
