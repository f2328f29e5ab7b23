/**
 * All configuration comes from the environment, read and validated once at start. A bad value stops the process
 * with a message naming the variable, rather than failing later somewhere far from the cause.
 */
import { isIP } from 'node:net';

export interface Config {
  port: number;
  /** HOST: the address the HTTP server listens on; unset, every interface, IPv6 and IPv4 (Node's own default). */
  host?: string;
  /**
   * Proxies of ours in front of the service (TRUST_PROXY_HOPS): 0, the client's address is the socket's; N, it is the
   * N-th X-Forwarded-For entry from the right (src/http/client-address.ts).
   */
  trustProxyHops: number;
  databaseUrl?: string;
  /** DATABASE_REPLICA_URLS: streaming replicas of DATABASE_URL's server for lag-tolerant reads (src/kit/replicas/replica.driver.ts). */
  databaseReplicaUrls: string[];
  /** REPLICA_MAX_LAG: a replica further behind than this is skipped until it catches up. */
  replicaMaxLagMs: number;
  publicUrl: string;
  surveyUrl: string;
  logLevel: LogLevel;
  embeddedPgPort: number;
  dataDir: string;
  /** Delivery attempts this process runs at once; 0 = no workers in this process (API only). */
  workers: number;
  /** EVENT_RETENTION_DAYS: events are dropped a week at a time once this old (kit/db/time-partitions.ts). */
  eventRetentionDays: number;
  webhooks: WebhookSettings;
  /** Redis shared by every process (rate limits); unset: each process keeps its limits in memory. */
  redisUrl?: string;
  /** Prefix of every Redis key, so deployments (or test runs) can share one Redis. */
  redisKeyPrefix: string;
  rateLimits: RateLimitSettings;
  /** Bearer token /metrics asks for; unset: /metrics is open (keep it off the public network then). */
  metricsToken?: string;
  feedback: FeedbackSettings;
  oauth: OAuthSettings;
  /** SIGNUP: open, anyone may create an account; invite, only an invitation's link; off, neither (the operator's CLI). */
  signup: SignupMode;
  /** What one business may send a day, and one inbox receive (src/modules/sending, docs: README "Sending budgets"). */
  sending: SendingSettings;
}

/** A daily number of messages on one channel: while the business is new, and after. */
interface ChannelBudget {
  newBusiness: number;
  established: number;
}

/** The sending budgets and inbox limits (README's table names each variable). */
export interface SendingSettings {
  sms: ChannelBudget;
  email: ChannelBudget;
  /** SEND_BUDGET_NEW_DAYS: a business is new this many days after it was created. */
  newDays: number;
  /** SEND_BUDGET_PER_GUEST: messages a day from one business to one guest, per channel. */
  perGuest: number;
  /** INVITATIONS_PER_DAY: invitations one business may send a day. */
  invitationsPerDay: number;
  /** ACCOUNT_MAILS_PER_ADDRESS_HOUR: reset, confirmation and invitation e-mails one inbox receives an hour, whatever the source. */
  accountMailsPerHour: number;
}

const SIGNUP_MODES = ['open', 'invite', 'off'] as const;
type SignupMode = (typeof SIGNUP_MODES)[number];

const PKCE_RULES = ['public', 'all'] as const;
type PkceRule = (typeof PKCE_RULES)[number];

export interface OAuthSettings {
  /**
   * OAUTH_REQUIRE_PKCE: `public`, PKCE (and the redirect URI at the token endpoint) is required of public clients and
   * of credentials that opt in (requirePkce), and optional for the rest, as the interface document's flow has it;
   * `all`, required of every client (OAuth 2.1), which breaks that flow for partners who follow it.
   */
  requirePkce: PkceRule;
}

/** Per-second rates with their bursts; a rate of 0 turns that limit off. */
export interface RateLimitSettings {
  apiPerSecond: number;
  apiBurst: number;
  webhookPerSecond: number;
  webhookBurst: number;
  /**
   * Failed client authentications (OAuth) or webhook secrets per (client id or business, address), and per address, in
   * the window; past the first, that address is refused for that client id (FailureLimit).
   */
  authFailuresPerClient: number;
  authFailuresPerAddress: number;
  authFailureWindowMs: number;
}

/** The senders of feedback requests (issue 16); each unset one leaves its channel without a sender. */
export interface FeedbackSettings {
  smtpUrl?: string;
  /**
   * MAIL_OUTBOX=dev: every e-mail and text is kept in the database and shown at /portal/dev/outbox instead of sent
   * (SMTP_URL and the SMS providers are then unused). Refused with NODE_ENV=production.
   */
  outbox?: 'dev';
  mailFrom: string;
  twilio?: { accountSid: string; authToken: string; from: string; apiBase: string };
  smsGatewayUrl?: string;
  /** The shared secret an SMS provider's inbound-reply webhook (STOP) presents. */
  smsInboundSecret?: string;
}

export interface WebhookSettings {
  /** Delay before each retry, in ms; its length is the number of retries. */
  retrySchedule: number[];
  /** Lets webhooks target loopback and private addresses (never link-local or cloud metadata): tests, local setups. */
  allowPrivateNetworks: boolean;
  /** Attempts per second per webhook. */
  ratePerSecond: number;
}

/** Stripe-like: about 3 days in all. */
const DEFAULT_RETRY_SCHEDULE = '5s,5m,30m,2h,5h,10h,14h,20h,24h';
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `1s,2s,5m`: each a positive number and a unit (ms, s, m, h, d). */
function parseDurations(raw: string): number[] | undefined {
  const parts = raw.split(',').map((p) => p.trim());
  const out: number[] = [];
  for (const part of parts) {
    const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)$/.exec(part);
    if (!m) return undefined;
    out.push(Math.round(Number(m[1]) * DURATION_UNITS[m[2]]));
  }
  return out.length && out.length <= 50 ? out : undefined;
}

function count(env: Env, name: string, fallback: number, max: number, problems: string[]): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) > max) {
    problems.push(`${name} must be an integer from 0 to ${max}, got "${raw}"`);
    return fallback;
  }
  return Number(raw);
}

function flag(env: Env, name: string, problems: string[]): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (!raw) return false;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  problems.push(`${name} must be true or false, got "${env[name]}"`);
  return false;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function port(env: Env, name: string, fallback: number, problems: string[]): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > 65535) {
    problems.push(`${name} must be a TCP port between 1 and 65535, got "${raw}"`);
    return fallback;
  }
  return n;
}

function url(env: Env, name: string, fallback: string | undefined, protocols: string[], problems: string[]) {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  try {
    const parsed = new URL(raw);
    if (!protocols.includes(parsed.protocol)) {
      problems.push(`${name} must be a ${protocols.join(' or ')} URL, got "${redact(raw)}"`);
    }
  } catch {
    problems.push(`${name} is not a valid URL: "${redact(raw)}"`);
  }
  // Links are built by appending paths: keep one canonical form without the trailing slash.
  return raw.replace(/\/+$/, '');
}

/** Never echo a database password into logs. */
function redact(raw: string) {
  return raw.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@');
}

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const listenPort = port(env, 'PORT', 4000, problems);
  const trustProxyHops = count(env, 'TRUST_PROXY_HOPS', 0, 10, problems);
  const embeddedPgPort = port(env, 'EMBEDDED_PG_PORT', 54329, problems);
  const host = env.HOST?.trim() || undefined;
  if (host !== undefined && !isIP(host) && host !== 'localhost')
    problems.push(`HOST must be an IP address to listen on (0.0.0.0, 127.0.0.1, ::) or localhost, got "${env.HOST}"`);
  const databaseUrl = url(env, 'DATABASE_URL', undefined, ['postgres:', 'postgresql:'], problems);
  const databaseReplicaUrls = replicaUrls(env, databaseUrl, problems);
  const replicaMaxLagMs = seconds(env, 'REPLICA_MAX_LAG', 5_000, 3_600_000, problems);
  const publicUrl = url(env, 'PUBLIC_URL', `http://localhost:${listenPort}`, ['http:', 'https:'], problems)!;
  const surveyUrl = url(env, 'SURVEY_URL', publicUrl, ['http:', 'https:'], problems)!;
  const rawLevel = (env.LOG_LEVEL?.trim() || 'info').toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(rawLevel)) {
    problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${env.LOG_LEVEL}"`);
  }
  const retrySchedule = parseDurations(env.WEBHOOK_RETRY_SCHEDULE?.trim() || DEFAULT_RETRY_SCHEDULE);
  if (!retrySchedule) {
    problems.push(
      `WEBHOOK_RETRY_SCHEDULE must be comma-separated durations such as "5s,5m,2h" (units ms, s, m, h, d; at most 50), got "${env.WEBHOOK_RETRY_SCHEDULE}"`,
    );
  }
  const workers = count(env, 'WORKERS', 64, 1000, problems);
  const eventRetentionDays = retentionDays(env, problems);
  const ratePerSecond = count(env, 'WEBHOOK_RATE_LIMIT', 10, 100_000, problems);
  if (ratePerSecond === 0) problems.push('WEBHOOK_RATE_LIMIT must be at least 1');
  const allowPrivateNetworks = flag(env, 'WEBHOOK_ALLOW_PRIVATE_NETWORKS', problems);
  const redisUrl = url(env, 'REDIS_URL', undefined, ['redis:', 'rediss:'], problems);
  const rateLimits = readRateLimits(env, problems);
  const feedback = feedbackSettings(env, publicUrl, problems);
  const requirePkce = pkceRule(env, problems);
  const signup = (env.SIGNUP?.trim().toLowerCase() || 'open') as SignupMode;
  if (!SIGNUP_MODES.includes(signup)) problems.push(`SIGNUP must be one of ${SIGNUP_MODES.join(', ')}, got "${env.SIGNUP}"`);
  const sending = sendingSettings(env, problems);
  if (problems.length) throw new ConfigError(problems);
  return {
    port: listenPort,
    host,
    trustProxyHops,
    databaseUrl,
    databaseReplicaUrls,
    replicaMaxLagMs,
    publicUrl,
    surveyUrl,
    logLevel: rawLevel as LogLevel,
    embeddedPgPort,
    dataDir: env.DATA_DIR?.trim() || '.data',
    workers,
    eventRetentionDays,
    webhooks: { retrySchedule: retrySchedule!, allowPrivateNetworks, ratePerSecond },
    redisUrl,
    redisKeyPrefix: env.REDIS_KEY_PREFIX?.trim() || 'feedback:',
    rateLimits,
    metricsToken: env.METRICS_TOKEN?.trim() || undefined,
    feedback,
    oauth: { requirePkce },
    signup,
    sending,
  };
}

/** OAUTH_REQUIRE_PKCE; the switch it replaced (whose default was the opposite) is named, so no one keeps it unawares. */
function pkceRule(env: Env, problems: string[]): PkceRule {
  if (env.OAUTH_ALLOW_CONFIDENTIAL_WITHOUT_PKCE !== undefined) {
    problems.push(
      "OAUTH_ALLOW_CONFIDENTIAL_WITHOUT_PKCE was removed: confidential clients may go without PKCE by default (the interface document's flow); set OAUTH_REQUIRE_PKCE=all to require it of every client",
    );
  }
  const rule = (env.OAUTH_REQUIRE_PKCE?.trim().toLowerCase() || 'public') as PkceRule;
  if (!PKCE_RULES.includes(rule)) problems.push(`OAUTH_REQUIRE_PKCE must be one of ${PKCE_RULES.join(', ')}, got "${env.OAUTH_REQUIRE_PKCE}"`);
  return rule;
}

/** The sending budgets' defaults: small for a business in its first week, larger after (issue 48). */
const DEFAULT_SENDING: SendingSettings = {
  sms: { newBusiness: 50, established: 1_000 },
  email: { newBusiness: 200, established: 5_000 },
  newDays: 7,
  perGuest: 5,
  invitationsPerDay: 20,
  accountMailsPerHour: 3,
};

function sendingSettings(env: Env, problems: string[]): SendingSettings {
  const d = DEFAULT_SENDING;
  const budget = (name: string, fallback: number) => count(env, name, fallback, 10_000_000, problems);
  const settings: SendingSettings = {
    sms: { newBusiness: budget('SEND_BUDGET_SMS_NEW', d.sms.newBusiness), established: budget('SEND_BUDGET_SMS', d.sms.established) },
    email: { newBusiness: budget('SEND_BUDGET_EMAIL_NEW', d.email.newBusiness), established: budget('SEND_BUDGET_EMAIL', d.email.established) },
    newDays: count(env, 'SEND_BUDGET_NEW_DAYS', d.newDays, 365, problems),
    perGuest: count(env, 'SEND_BUDGET_PER_GUEST', d.perGuest, 1_000, problems),
    invitationsPerDay: count(env, 'INVITATIONS_PER_DAY', d.invitationsPerDay, 100_000, problems),
    accountMailsPerHour: count(env, 'ACCOUNT_MAILS_PER_ADDRESS_HOUR', d.accountMailsPerHour, 1_000, problems),
  };
  // 0 would hold every message for ever, or refuse every reset mail: a budget that is spent before it starts.
  const zero = Object.entries({
    SEND_BUDGET_SMS_NEW: settings.sms.newBusiness,
    SEND_BUDGET_SMS: settings.sms.established,
    SEND_BUDGET_EMAIL_NEW: settings.email.newBusiness,
    SEND_BUDGET_EMAIL: settings.email.established,
    SEND_BUDGET_PER_GUEST: settings.perGuest,
    INVITATIONS_PER_DAY: settings.invitationsPerDay,
    ACCOUNT_MAILS_PER_ADDRESS_HOUR: settings.accountMailsPerHour,
  }).filter(([, value]) => value === 0);
  for (const [name] of zero) problems.push(`${name} must be at least 1`);
  return settings;
}

/** DATABASE_REPLICA_URLS: comma-separated PostgreSQL URLs; they need DATABASE_URL (the embedded server has no replica). */
function replicaUrls(env: Env, primary: string | undefined, problems: string[]): string[] {
  const raw = env.DATABASE_REPLICA_URLS?.trim();
  if (!raw) return [];
  const urls = raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  urls.forEach((_, i) => url({ DATABASE_REPLICA_URLS: urls[i] }, 'DATABASE_REPLICA_URLS', undefined, ['postgres:', 'postgresql:'], problems));
  if (!primary) problems.push('DATABASE_REPLICA_URLS needs DATABASE_URL: replicas stream from your own primary, not from the embedded PostgreSQL');
  if (urls.length > 16) problems.push(`DATABASE_REPLICA_URLS lists ${urls.length} URLs; at most 16`);
  return urls;
}

/** A duration in seconds (`5`) or with a unit (`5s`, `500ms`, `1m`), from 0 to `max` ms. */
function seconds(env: Env, name: string, fallback: number, max: number, problems: string[]): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const withUnit = parseDurations(raw);
  const ms = /^\d+(\.\d+)?$/.test(raw) ? Math.round(Number(raw) * 1_000) : withUnit?.length === 1 ? withUnit[0] : undefined;
  if (ms === undefined || ms > max) {
    problems.push(`${name} must be one duration from 0 to ${max / 1_000} s, in seconds ("5") or with a unit ("5s", "500ms"), got "${raw}"`);
    return fallback;
  }
  return ms;
}

/** How long webhook deliveries are kept; they show their events, so events are kept at least as long. */
export const DELIVERY_RETENTION_DAYS = 30;

function retentionDays(env: Env, problems: string[]): number {
  const raw = env.EVENT_RETENTION_DAYS?.trim();
  if (!raw) return 90;
  if (!/^\d+$/.test(raw) || Number(raw) < DELIVERY_RETENTION_DAYS || Number(raw) > 36_500) {
    problems.push(
      `EVENT_RETENTION_DAYS must be a whole number of days from ${DELIVERY_RETENTION_DAYS} (webhook deliveries, kept ${DELIVERY_RETENTION_DAYS} days, show their events) to 36500, got "${raw}"`,
    );
    return 90;
  }
  return Number(raw);
}

function readRateLimits(env: Env, problems: string[]): RateLimitSettings {
  const apiPerSecond = count(env, 'RATE_LIMIT_API_PER_SECOND', 100, 1_000_000, problems);
  const webhookPerSecond = count(env, 'RATE_LIMIT_WEBHOOK_PER_SECOND', 100, 1_000_000, problems);
  const apiBurst = count(env, 'RATE_LIMIT_API_BURST', Math.max(200, apiPerSecond), 10_000_000, problems);
  const webhookBurst = count(env, 'RATE_LIMIT_WEBHOOK_BURST', Math.max(500, webhookPerSecond), 10_000_000, problems);
  if (apiBurst < apiPerSecond) problems.push('RATE_LIMIT_API_BURST must be at least RATE_LIMIT_API_PER_SECOND');
  if (webhookBurst < webhookPerSecond) problems.push('RATE_LIMIT_WEBHOOK_BURST must be at least RATE_LIMIT_WEBHOOK_PER_SECOND');
  const window = parseDurations(env.RATE_LIMIT_AUTH_FAILURE_WINDOW?.trim() || '15m');
  if (!window || window.length !== 1 || window[0] < 1_000) {
    problems.push(`RATE_LIMIT_AUTH_FAILURE_WINDOW must be one duration of at least 1s such as "15m", got "${env.RATE_LIMIT_AUTH_FAILURE_WINDOW}"`);
  }
  return {
    apiPerSecond,
    apiBurst,
    webhookPerSecond,
    webhookBurst,
    authFailuresPerClient: count(env, 'RATE_LIMIT_AUTH_FAILURES_PER_CLIENT', 10, 1_000_000, problems),
    authFailuresPerAddress: count(env, 'RATE_LIMIT_AUTH_FAILURES_PER_ADDRESS', 50, 1_000_000, problems),
    authFailureWindowMs: window?.[0] ?? 900_000,
  };
}

function feedbackSettings(env: Env, publicUrl: string, problems: string[]): FeedbackSettings {
  const smtpUrl = url(env, 'SMTP_URL', undefined, ['smtp:', 'smtps:'], problems);
  const host = (() => {
    try {
      return new URL(publicUrl).hostname;
    } catch {
      return 'localhost';
    }
  })();
  const mailFrom = env.MAIL_FROM?.trim() || `Feedback <no-reply@${host.includes('.') ? host : 'localhost.localdomain'}>`;
  if (!/^[^<>@\s]+@[^<>@\s]+$|<[^<>@\s]+@[^<>@\s]+>$/.test(mailFrom))
    problems.push(`MAIL_FROM must be an address, e.g. "Cafe Uno <feedback@example.com>", got "${mailFrom}"`);
  const sid = env.TWILIO_ACCOUNT_SID?.trim();
  const token = env.TWILIO_AUTH_TOKEN?.trim();
  const from = env.TWILIO_FROM?.trim();
  let twilio: FeedbackSettings['twilio'];
  if (sid || token || from) {
    if (!sid || !token || !from) problems.push('TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM go together: set all three or none');
    else twilio = { accountSid: sid, authToken: token, from, apiBase: url(env, 'TWILIO_API_BASE', 'https://api.twilio.com', ['http:', 'https:'], problems)! };
  }
  const smsGatewayUrl = url(env, 'SMS_GATEWAY_URL', undefined, ['http:', 'https:'], problems);
  const smsInboundSecret = env.SMS_INBOUND_SECRET?.trim() || undefined;
  if (smsInboundSecret && smsInboundSecret.length < 16) problems.push('SMS_INBOUND_SECRET must be at least 16 characters');
  return { smtpUrl, mailFrom, twilio, smsGatewayUrl, smsInboundSecret, outbox: mailOutbox(env, problems) };
}

/** MAIL_OUTBOX: `dev` or unset; never `dev` in production, where the outbox page would show anyone every link. */
function mailOutbox(env: Env, problems: string[]): 'dev' | undefined {
  const raw = env.MAIL_OUTBOX?.trim().toLowerCase();
  if (!raw) return undefined;
  if (raw !== 'dev') {
    problems.push(`MAIL_OUTBOX must be "dev" or unset, got "${env.MAIL_OUTBOX}"`);
    return undefined;
  }
  if (env.NODE_ENV?.trim() === 'production') {
    problems.push(
      'MAIL_OUTBOX=dev is refused with NODE_ENV=production: it keeps every e-mail and text in the database instead of sending it, and shows them (sign-up and password links included) to anyone at /portal/dev/outbox. Unset MAIL_OUTBOX and set SMTP_URL to send e-mail; to try the outbox locally, run with NODE_ENV=development MAIL_OUTBOX=dev',
    );
    return undefined;
  }
  return 'dev';
}

/** The channels this installation can send by: e-mail with SMTP_URL, texts with Twilio or a gateway; both with the dev outbox that keeps them. */
export const channelsWithSender = (settings: Pick<FeedbackSettings, 'smtpUrl' | 'outbox' | 'twilio' | 'smsGatewayUrl'>): Record<'email' | 'sms', boolean> => ({
  email: !!settings.smtpUrl || settings.outbox === 'dev',
  sms: !!(settings.twilio || settings.smsGatewayUrl) || settings.outbox === 'dev',
});

/** Whether this installation can send e-mail at all: SMTP_URL, or the dev outbox that keeps it. */
export const canSendMail = (settings: Pick<FeedbackSettings, 'smtpUrl' | 'outbox' | 'twilio' | 'smsGatewayUrl'>): boolean => channelsWithSender(settings).email;

export { redact as redactUrl };
