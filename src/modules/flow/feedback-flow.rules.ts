import { createHash } from 'node:crypto';
import { Checks } from '../../shared/validation.js';
import { isTimeZone } from '../../shared/time-zone.js';
import { ORDER_CHANNELS } from '../order/index.js';
import {
  FLOW_CHANNELS,
  FLOW_TRIGGERS,
  type FlowChannel,
  type FlowConditions,
  type FlowTemplate,
  type FlowTrigger,
  type QuietHours,
} from './feedback-flow.entity.js';

/** The rules of a flow's fields, shared by create, update and simulate (the GraphQL inputs and REST bodies alike). */
const MAX_DELAY_MINUTES = 30 * 24 * 60;
/**
 * A new flow's settings where its creator names none (the API and the portal's form alike, through
 * feedbackFlowDefaults): an hour after the order, when a dine-in guest has eaten and a delivery has arrived; quiet
 * from 23:00 to 09:00 where the guest ordered (the location's time zone), so a late dinner is still asked the same
 * evening and nobody is woken.
 */
const DEFAULT_QUIET_HOURS: QuietHours = { from: '23:00', to: '09:00' };
const DEFAULT_TEMPLATES: Record<string, FlowTemplate> = {
  en: {
    subject: 'How was your order?',
    body: 'Hi {{name}}, thank you for your order {{orderId}}. Tell us how it went (one minute): {{link}}',
  },
};
export const FLOW_DEFAULTS = {
  delayMinutes: 60,
  quietHours: DEFAULT_QUIET_HOURS,
  throttleDays: 14,
  expiresAfterHours: 168,
  templates: DEFAULT_TEMPLATES,
} as const;
/** What a template may name; {{link}} is required in every body. */
const PLACEHOLDERS = new Set(['link', 'name', 'fullName', 'orderId']);
const CONDITION_KEYS = ['channel', 'location', 'minTotal', 'metadata', 'hasEmail', 'hasPhone'] as const;

export interface FlowFields {
  name?: string;
  enabled?: boolean;
  priority?: number;
  trigger?: string;
  conditions?: Record<string, unknown> | null;
  survey?: string;
  channels?: string[];
  delayMinutes?: number;
  quietHours?: Record<string, unknown> | null;
  throttleDays?: number;
  reminderAfterHours?: number | null;
  expiresAfterHours?: number;
  templates?: Record<string, unknown>;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

function integer(checks: Checks, field: string, value: unknown, min: number, max: number, message = `must be an integer from ${min} to ${max}`) {
  if (value === undefined || value === null) return;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) checks.fail(field, message);
}

/** Checks every field given (all required ones when creating); the survey's ownership is the service's to check. */
export function checkFlowFields(checks: Checks, input: FlowFields, creating: boolean) {
  if (creating || input.name !== undefined) checks.text('name', input.name, { required: true, max: 200 });
  if (creating && !input.survey) checks.fail('survey', 'is required');
  if (input.trigger != null && !(FLOW_TRIGGERS as readonly string[]).includes(input.trigger))
    checks.fail('trigger', `must be one of ${FLOW_TRIGGERS.join(', ')}`);
  integer(checks, 'priority', input.priority, -1_000_000, 1_000_000);
  integer(checks, 'delayMinutes', input.delayMinutes, 0, MAX_DELAY_MINUTES, 'must be an integer from 0 to 43200 (at most 30 days)');
  integer(checks, 'throttleDays', input.throttleDays, 0, 365);
  integer(checks, 'reminderAfterHours', input.reminderAfterHours, 1, 24 * 30);
  integer(checks, 'expiresAfterHours', input.expiresAfterHours, 1, 24 * 90);
  if (input.channels != null) {
    if (!Array.isArray(input.channels) || !input.channels.length) checks.fail('channels', `must list one or more of ${FLOW_CHANNELS.join(', ')}`);
    else {
      input.channels.forEach((c, i) => {
        if (!(FLOW_CHANNELS as readonly string[]).includes(c)) checks.fail(`channels[${i}]`, `must be one of ${FLOW_CHANNELS.join(', ')}`);
      });
      if (new Set(input.channels).size !== input.channels.length) checks.fail('channels', 'lists a channel twice');
    }
  }
  if (input.conditions != null) checkConditions(checks, input.conditions);
  if (input.quietHours != null) {
    const q = input.quietHours;
    if (!isObject(q)) checks.fail('quietHours', 'must be {"from": "HH:MM", "to": "HH:MM", "timeZone"?: "<IANA zone>"} or null');
    else {
      for (const key of Object.keys(q))
        if (!['from', 'to', 'timeZone'].includes(key)) checks.fail(`quietHours.${key}`, 'is not a field of quietHours (from, to, timeZone)');
      for (const key of ['from', 'to'] as const)
        if (typeof q[key] !== 'string' || !HHMM.test(q[key] as string)) checks.fail(`quietHours.${key}`, 'must be a time of day "HH:MM" (00:00 to 23:59)');
      if (q.from === q.to && typeof q.from === 'string') checks.fail('quietHours', 'from and to must differ');
      if (q.timeZone !== undefined && (typeof q.timeZone !== 'string' || !isTimeZone(q.timeZone)))
        checks.fail('quietHours.timeZone', 'must be an IANA time zone such as "Asia/Karachi"');
    }
  }
  if (input.templates !== undefined) checkTemplates(checks, input.templates);
}

function checkConditions(checks: Checks, conditions: unknown) {
  if (!isObject(conditions)) return checks.fail('conditions', 'must be an object');
  for (const [key, value] of Object.entries(conditions)) {
    const field = `conditions.${key}`;
    switch (key as (typeof CONDITION_KEYS)[number]) {
      case 'channel':
        if (!Array.isArray(value) || !value.length || value.some((v) => !(ORDER_CHANNELS as readonly string[]).includes(v as string))) {
          checks.fail(field, `must be a list of order channels (${ORDER_CHANNELS.join(', ')})`);
        }
        break;
      case 'location':
        if (!Array.isArray(value) || !value.length || value.length > 500 || value.some((v) => typeof v !== 'string' || !v || v.length > 200)) {
          checks.fail(field, 'must be a list of externalLocationId values');
        }
        break;
      case 'minTotal':
        if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) checks.fail(field, 'must be a number from 0');
        break;
      case 'metadata':
        checks.stringMap(field, value, { maxEntries: 20, maxValue: 500, minEntries: 1 });
        break;
      case 'hasEmail':
      case 'hasPhone':
        if (typeof value !== 'boolean') checks.fail(field, 'must be true or false');
        break;
      default:
        checks.fail(field, `is not a condition; the conditions are ${CONDITION_KEYS.join(', ')}`);
    }
  }
}

function checkTemplates(checks: Checks, templates: unknown) {
  if (!isObject(templates) || !Object.keys(templates).length)
    return checks.fail('templates', 'must be an object of languages, e.g. {"en": {"subject": "...", "body": "... {{link}} ..."}}');
  for (const [lang, template] of Object.entries(templates)) {
    const field = `templates.${lang}`;
    if (!/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/.test(lang)) checks.fail(field, 'must be keyed by a language code such as "en" or "ur"');
    if (!isObject(template)) {
      checks.fail(field, 'must be {"subject"?: "...", "body": "... {{link}} ..."}');
      continue;
    }
    for (const key of Object.keys(template)) if (key !== 'subject' && key !== 'body') checks.fail(`${field}.${key}`, 'is not a template field (subject, body)');
    checks.text(`${field}.subject`, template.subject, { max: 200 });
    if (checks.text(`${field}.body`, template.body, { required: true, max: 1000 }) && typeof template.body === 'string') {
      if (!template.body.includes('{{link}}')) checks.fail(`${field}.body`, 'must contain the {{link}} placeholder');
      for (const m of (template.body + String(template.subject ?? '')).matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)) {
        if (!PLACEHOLDERS.has(m[1]))
          checks.fail(field, `unknown placeholder {{${m[1]}}}; the placeholders are ${[...PLACEHOLDERS].map((p) => `{{${p}}}`).join(', ')}`);
      }
    }
  }
}

/** The order as a flow's conditions and messages see it. */
export interface FlowOrder {
  id: string;
  externalOrderId: string;
  externalLocationId: string | null;
  channel: string | null;
  total: number;
  customerName: string | null;
  customerEmail: string | null;
  customerPhone: string | null;
  metadata: Record<string, string>;
  createdAt: Date;
}

/** An order as any writer holds it (the entity, the writer's record, fields read from a request). */
export interface OrderLike {
  id: string;
  externalOrderId: string;
  externalLocationId?: string | null;
  channel?: string | null;
  total: number | string;
  customerName?: string | null;
  customerEmail?: string | null;
  customerPhone?: string | null;
  metadata?: Record<string, string> | null;
  createdAt: Date;
}

/** The order as flows match it: one mapping for the order writer and the flow service's dry run. */
export function flowOrderOf(order: OrderLike): FlowOrder {
  return {
    id: order.id,
    externalOrderId: order.externalOrderId,
    externalLocationId: order.externalLocationId ?? null,
    channel: order.channel ?? null,
    total: Number(order.total),
    customerName: order.customerName ?? null,
    customerEmail: order.customerEmail ?? null,
    customerPhone: order.customerPhone ?? null,
    metadata: order.metadata ?? {},
    createdAt: order.createdAt,
  };
}

/** Why the order does not match (empty when it does). */
export function unmetConditions(conditions: FlowConditions | null | undefined, order: FlowOrder): string[] {
  const why: string[] = [];
  if (!conditions) return why;
  if (conditions.channel && !conditions.channel.includes(order.channel ?? ''))
    why.push(`channel ${order.channel ?? '(none)'} is not one of ${conditions.channel.join(', ')}`);
  if (conditions.location && !conditions.location.includes(order.externalLocationId ?? ''))
    why.push(`location ${order.externalLocationId ?? '(none)'} is not one of ${conditions.location.join(', ')}`);
  if (conditions.minTotal != null && !(order.total >= conditions.minTotal)) why.push(`total ${order.total} is under ${conditions.minTotal}`);
  for (const [key, value] of Object.entries(conditions.metadata ?? {})) {
    if (order.metadata?.[key] !== value) why.push(`metadata.${key} is not "${value}"`);
  }
  if (conditions.hasEmail != null && conditions.hasEmail !== !!order.customerEmail)
    why.push(conditions.hasEmail ? 'the customer has no e-mail' : 'the customer has an e-mail');
  if (conditions.hasPhone != null && conditions.hasPhone !== !!order.customerPhone)
    why.push(conditions.hasPhone ? 'the customer has no phone' : 'the customer has a phone');
  return why;
}

export const asTrigger = (t: string) => t as FlowTrigger;
export const asChannels = (c: string[]) => c as FlowChannel[];

/** sha256 of the normalised contact: e-mail trimmed and lower-cased, phone in E.164 (as orders store it). */
export function contactHash(channel: 'email' | 'sms', contact: string | null | undefined): string | null {
  if (!contact) return null;
  const normal = channel === 'email' ? contact.trim().toLowerCase() : contact.replace(/[^\d+]/g, '');
  return createHash('sha256').update(`${channel}:${normal}`).digest('hex');
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5));

/**
 * The zone quiet hours are read in: their own, else the one the order is local to (its location's, else its
 * business's); null when there are none, or no zone is known, and then they do not apply: hours read in a guessed zone
 * (UTC) would hold messages back at the wrong time of day.
 */
export function quietHoursZone(quiet: QuietHours | null | undefined, localZone: string | null): string | null {
  return quiet ? quiet.timeZone || localZone || null : null;
}

/**
 * When a send due at `at` may go: `at` itself, or the end of the quiet hours it falls inside (a window may wrap past
 * midnight, 21:00 to 09:00), read in quietHoursZone: `at` itself when no zone is known.
 */
export function afterQuietHours(at: Date, quiet: QuietHours | null | undefined, localZone: string | null): Date {
  const zone = quietHoursZone(quiet, localZone);
  if (!quiet || !zone) return at;
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).formatToParts(at);
  const local = Number(parts.find((p) => p.type === 'hour')!.value) * 60 + Number(parts.find((p) => p.type === 'minute')!.value);
  const from = minutesOf(quiet.from);
  const to = minutesOf(quiet.to);
  const inside = from < to ? local >= from && local < to : local >= from || local < to;
  if (!inside) return at;
  const wait = (to - local + 1440) % 1440;
  const startOfMinute = at.getTime() - (at.getTime() % 60_000);
  return new Date(startOfMinute + wait * 60_000);
}

/** The template for the order's language (metadata.lang, else English, else the first). */
export function templateFor(templates: Record<string, FlowTemplate>, lang: string | undefined): { lang: string; template: FlowTemplate } {
  const key = lang && templates[lang] ? lang : templates.en ? 'en' : Object.keys(templates)[0];
  return { lang: key, template: templates[key] };
}

/** Titles a name may start with, left out of a greeting ("Hi Dr." greets nobody). */
const TITLES = new Set(['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'sir', 'madam', 'syed', 'sayyid', 'mian', 'ch', 'chaudhry', 'hafiz', 'haji']);

/** The name a guest is greeted by: the first word of their name that is not a title, or the whole name if it is all titles. */
export function firstName(name: string | null): string {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  return words.find((w) => !TITLES.has(w.toLowerCase().replace(/\.$/, ''))) ?? words.join(' ');
}

/** {{name}} greets by the first name ("Hi Ayesha"), {{fullName}} names the guest as the order did; "there" when neither is known. */
export function render(text: string, values: { link: string; name: string | null; orderId: string }): string {
  return text.replace(/\{\{\s*(link|name|fullName|orderId)\s*\}\}/g, (_, key: string) =>
    key === 'link'
      ? values.link
      : key === 'name'
        ? firstName(values.name) || 'there'
        : key === 'fullName'
          ? (values.name ?? '').trim() || 'there'
          : values.orderId,
  );
}
