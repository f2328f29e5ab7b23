import type { EntityManager } from '@mikro-orm/postgresql';
import { createRecorded, deleteRecorded, updateRecorded } from '../event/index.js';
import { ownedResource } from '../../kit/resource/owned.resource.js';
import { Checks } from '../../shared/validation.js';
import { AppError } from '../../shared/errors.js';
import { wordsOf } from '../../shared/keywords.js';
import { BUILT_IN_THEMES, knownThemes, type SentimentLabel } from '../text/index.js';
import { normaliseEmail, normalisePhone } from '../order/index.js';
import { ALERT_SEVERITIES, AlertRule, type AlertRecipient, type AlertSeverity, type AlertWhen } from './alert-rule.entity.js';
import { insertRecipients, ownedIds, rulesOfBusiness } from './alert.repo.js';
import type { AlertRuleType, StoredRecipient } from './alert-rule.type.js';
import type { AlertRecipientInput, AlertRuleWhenInput, CreateAlertRuleInput, UpdateAlertRuleInput } from './alert-rule.inputs.js';
import { ownedPresenter } from '../../kit/resource/owned.presenter.js';

/** A recipient as answers and events show it: one of member, role, or channel and to is set. */
function presentRecipient(r: AlertRecipient): StoredRecipient {
  if ('member' in r) return { channel: null, to: null, role: null, member: r.member };
  if ('role' in r) return { channel: null, to: null, role: r.role, member: null };
  return { channel: r.channel, to: r.to, role: null, member: null };
}

const presentAlertRule = ownedPresenter<AlertRule, AlertRuleType>('alertrule', {
  name: 'name',
  enabled: 'enabled',
  severity: 'severity',
  when: ({ when }) => {
    // Every condition shows, an unset one as null.
    const { maxRating = null, maxNps = null, keywords = null, themes = null, sentiment = null, locations = null, surveys = null } = when;
    return { maxRating, maxNps, keywords, themes, sentiment, locations, surveys };
  },
  notify: (rule) => rule.notify.map(presentRecipient),
  escalateAfterMinutes: 'escalateAfterMinutes?',
});

const MAX_KEYWORDS = 50;
const MAX_RECIPIENTS = 20;
const MAX_IDS = 100;
const MAX_ESCALATION_MINUTES = 10_080;
/** Every completed answer is matched against each enabled rule on the request's thread: a business's rules are bounded. */
const MAX_ALERT_RULES = 100;

const MAX_THEMES = 20;
const SENTIMENTS: readonly SentimentLabel[] = ['positive', 'neutral', 'negative'];

/** `when.themes` (each built in or one of the business's own, from its theme settings) and `when.sentiment`. */
async function checkThemes(em: EntityManager, business: string, checks: Checks, when: AlertRuleWhenInput, out: AlertWhen) {
  if (when.sentiment != null) {
    if (!SENTIMENTS.includes(when.sentiment as SentimentLabel)) checks.fail('when.sentiment', `must be one of ${SENTIMENTS.join(', ')}`);
    else out.sentiment = when.sentiment as SentimentLabel;
  }
  if (when.themes == null) return;
  if (when.themes.length > MAX_THEMES) return checks.fail('when.themes', `at most ${MAX_THEMES} themes`);
  const known = await knownThemes(em, business);
  when.themes.forEach((theme, i) => {
    if (!known.has(theme)) checks.fail(`when.themes[${i}]`, `'${theme}' is not a theme of this business (built in: ${BUILT_IN_THEMES.join(', ')})`);
  });
  if (when.themes.length) out.themes = [...new Set(when.themes)];
}

/** A rule's condition as stored, or the fields that are wrong (each named `when.<field>`). */
async function checkedWhen(em: EntityManager, business: string, checks: Checks, when: AlertRuleWhenInput | null | undefined): Promise<AlertWhen> {
  if (!when) {
    checks.fail('when', 'is required');
    return {};
  }
  const out: AlertWhen = {};
  if (when.maxRating != null) {
    if (when.maxRating < 0 || when.maxRating > 100) checks.fail('when.maxRating', 'must be from 0 to 100');
    else out.maxRating = when.maxRating;
  }
  if (when.maxNps != null) {
    if (when.maxNps < 0 || when.maxNps > 10) checks.fail('when.maxNps', 'must be from 0 to 10');
    else out.maxNps = when.maxNps;
  }
  if (when.keywords != null) {
    if (when.keywords.length > MAX_KEYWORDS) checks.fail('when.keywords', `at most ${MAX_KEYWORDS} keywords`);
    when.keywords.forEach((keyword, i) => {
      if (checks.text(`when.keywords[${i}]`, keyword, { required: true, max: 100 }) && !wordsOf(keyword).length)
        checks.fail(`when.keywords[${i}]`, 'must hold a word (letters or digits)');
    });
    const keywords = [...new Set(when.keywords.map((k) => k.trim()))];
    if (keywords.length) out.keywords = keywords;
  }
  await checkThemes(em, business, checks, when, out);
  if (
    out.maxRating == null &&
    out.maxNps == null &&
    !out.keywords &&
    !out.themes &&
    !out.sentiment &&
    !checks.details.some((d) => d.field.startsWith('when.'))
  ) {
    checks.fail('when', 'give at least one of maxRating, maxNps, keywords, themes and sentiment');
  }
  for (const [field, kind] of [
    ['locations', 'location'],
    ['surveys', 'survey'],
  ] as const) {
    const ids = when[field];
    if (ids == null) continue;
    if (ids.length > MAX_IDS) {
      checks.fail(`when.${field}`, `at most ${MAX_IDS} ids`);
      continue;
    }
    const known = await ownedIds(em, kind, business, ids);
    ids.forEach((id, i) => {
      if (!known.has(id)) checks.fail(`when.${field}[${i}]`, `'${id}' is not a ${kind} of this business`);
    });
    if (ids.length) out[field] = [...new Set(ids)];
  }
  return out;
}

/**
 * The recipients as stored, or the entries that are wrong (each named `notify[i]` or a field of it): a member of this
 * business, a role, or an address of a channel (normalised, so one address is one recipient whatever its spelling).
 */
async function checkedRecipients(
  em: EntityManager,
  business: string,
  checks: Checks,
  notify: AlertRecipientInput[] | null | undefined,
): Promise<AlertRecipient[]> {
  if (!notify?.length) {
    checks.fail('notify', 'give at least one recipient');
    return [];
  }
  if (notify.length > MAX_RECIPIENTS) checks.fail('notify', `at most ${MAX_RECIPIENTS} recipients`);
  const members = await ownedIds(
    em,
    'membership',
    business,
    notify.flatMap((r) => (r.member != null ? [r.member] : [])),
  );
  const out: AlertRecipient[] = [];
  notify.forEach((r, i) => {
    const at = `notify[${i}]`;
    const kinds = [r.member != null, r.role != null, r.channel != null || r.to != null].filter(Boolean).length;
    if (kinds > 1) return checks.fail(at, 'give one of member, role, or channel and to');
    if (r.member != null) {
      if (!members.has(r.member)) checks.fail(`${at}.member`, `'${r.member}' is not a member of this business`);
      else out.push({ member: r.member });
      return;
    }
    if (r.role != null) {
      if (r.role !== 'owner' && r.role !== 'manager') checks.fail(`${at}.role`, 'must be owner or manager');
      else out.push({ role: r.role });
      return;
    }
    if (r.channel !== 'email' && r.channel !== 'sms') return checks.fail(`${at}.channel`, 'must be email or sms (or give a member or a role)');
    const to = r.channel === 'email' ? normaliseEmail(r.to) : normalisePhone(r.to);
    if (!to) return checks.fail(`${at}.to`, r.channel === 'email' ? 'must be an e-mail address' : 'must be a phone number in E.164 (+923001234567)');
    out.push({ channel: r.channel, to });
  });
  return out;
}

/** Each outside address or number a rule names is asked once (its confirmation queued in the rule's transaction). */
function askOutsideRecipients(tx: EntityManager, business: string, notify: AlertRecipient[]) {
  return insertRecipients(
    tx,
    business,
    notify.flatMap((r) => ('channel' in r ? [{ channel: r.channel, address: r.to }] : [])),
  );
}

function checkSeverity(checks: Checks, severity: string | null | undefined): severity is AlertSeverity | undefined | null {
  if (severity != null && !ALERT_SEVERITIES.includes(severity as AlertSeverity)) {
    checks.fail('severity', 'must be normal or urgent');
    return false;
  }
  return true;
}

function checkEscalation(checks: Checks, minutes: number | null | undefined, severity: AlertSeverity) {
  if (minutes == null) return;
  if (minutes < 1 || minutes > MAX_ESCALATION_MINUTES) checks.fail('escalateAfterMinutes', `must be from 1 to ${MAX_ESCALATION_MINUTES}`);
  else if (severity !== 'urgent') checks.fail('escalateAfterMinutes', 'only urgent rules escalate');
}

const { find: findAlertRule, list: listAlertRules, recorded } = ownedResource(AlertRule, { kind: 'alertRule', label: 'Alert rule', present: presentAlertRule });

async function createAlertRule(em: EntityManager, business: string, input: CreateAlertRuleInput): Promise<AlertRuleType> {
  const checks = new Checks();
  checks.text('name', input.name, { required: true, max: 200 });
  const severity = checkSeverity(checks, input.severity) ? ((input.severity as AlertSeverity | undefined) ?? 'normal') : 'normal';
  const when = await checkedWhen(em, business, checks, input.when);
  const notify = await checkedRecipients(em, business, checks, input.notify);
  checkEscalation(checks, input.escalateAfterMinutes, severity);
  checks.throwIfAny();
  return createRecorded(em, recorded, business, async (tx) => {
    if ((await tx.count(AlertRule, { business })) >= MAX_ALERT_RULES) {
      throw new AppError('conflict', `A business has at most ${MAX_ALERT_RULES} alert rules: change or delete one first`);
    }
    await askOutsideRecipients(tx, business, notify);
    return tx.create(AlertRule, {
      business,
      name: input.name.trim(),
      enabled: input.enabled ?? true,
      severity,
      when,
      notify,
      escalateAfterMinutes: input.escalateAfterMinutes ?? null,
    });
  });
}

function updateAlertRule(em: EntityManager, business: string, id: string, input: UpdateAlertRuleInput): Promise<AlertRuleType> {
  return updateRecorded(em, recorded, business, id, async (rule, tx) => {
    const checks = new Checks();
    if (input.name !== undefined) checks.text('name', input.name, { required: true, max: 200 });
    const severityOk = checkSeverity(checks, input.severity);
    const severity = (severityOk && (input.severity as AlertSeverity | null | undefined)) || rule.severity;
    const when = input.when !== undefined ? await checkedWhen(tx, business, checks, input.when) : undefined;
    const notify = input.notify !== undefined ? await checkedRecipients(tx, business, checks, input.notify) : undefined;
    const escalate = input.escalateAfterMinutes !== undefined ? input.escalateAfterMinutes : rule.escalateAfterMinutes;
    checkEscalation(checks, escalate, severity);
    checks.throwIfAny();
    if (input.name != null) rule.name = input.name.trim();
    if (input.enabled != null) rule.enabled = input.enabled;
    rule.severity = severity;
    if (when) rule.when = when;
    if (notify) {
      await askOutsideRecipients(tx, business, notify);
      rule.notify = notify;
    }
    rule.escalateAfterMinutes = escalate ?? null;
  });
}

/** Cases it opened keep their severity and reason and lose only the link (foreign key set null). */
function deleteAlertRule(em: EntityManager, business: string, id: string): Promise<string> {
  return deleteRecorded(em, recorded, business, id);
}

/** The operations by role, for the GraphQL resolver (OwnedCrudResolver). */
export const crud = {
  list: listAlertRules,
  find: findAlertRule,
  present: presentAlertRule,
  create: createAlertRule,
  update: updateAlertRule,
  delete: deleteAlertRule,
};

/**
 * A business's enabled rules, oldest first: what each completed submission is matched against, in its transaction.
 * Plain rows of one prepared statement (alert.repo.ts): every completed answer asks, and an ORM find cost the answer
 * more than the rest of its matching.
 */
export async function enabledAlertRules(em: EntityManager, business: string): Promise<AlertRule[]> {
  return (await rulesOfBusiness(em, business)).filter((rule) => rule.enabled);
}
