import type { EntityManager } from '@mikro-orm/core';
import { claimDueJobs, outboxLeases, releaseLeasedJobs, type LeaseClaim } from '../../kit/db/outbox-job.leases.js';
import { sql, type Insertable, type Updateable } from 'kysely';
import { db } from '../../kit/db/db.js';
import { wakeAfterCommit } from '../../kit/signals/signals.js';
import type { TableOf } from '../../kit/db/entity.table.js';
import type { CaseAlert } from './case-alert.entity.js';
import type { CaseMessage } from './case-message.entity.js';
import type { HeldSms } from './held-sms.entity.js';
import type { SmsThread } from './inbound-sms.rules.js';

/** The case module's statements. */

/** How long after its case opened a guest's next order still counts as coming back. */
const CAME_BACK_DAYS = 60;

/**
 * Whether an order of this business may recover anything: a case still waiting for its guest (open, replied or
 * resolved: a restaurant resolves a case once it has answered, and the guest coming back later is still the recovery
 * it wants counted; opened within CAME_BACK_DAYS), or an offer not yet redeemed nor expired. Two index probes (the
 * cases' through guest_case_business_waiting_idx, whose predicate is these statuses).
 */
export async function mayRecover(em: EntityManager, business: string, now: Date): Promise<boolean> {
  const { rows } = await sql<{ waiting: boolean }>`
    select exists (select 1 from guest_case where business_id = ${business} and status in ('open', 'replied', 'resolved') and opened_at > ${now}::timestamptz - make_interval(days => ${CAME_BACK_DAYS}))
        or exists (select 1 from offer where business_id = ${business} and redeemed_at is null and expires_at > ${now}) as waiting`.execute(db(em));
  return rows[0].waiting;
}

/**
 * What a new order recovers, in one statement: the offers whose code it carries (not yet redeemed, not expired) are
 * redeemed by it, and their cases, with every case still waiting for the same guest (open, replied or resolved, by
 * e-mail or phone, opened in the last CAME_BACK_DAYS), become recovered by it; a resolved case keeps its resolvedAt. A concurrent order with the same code waits for the row lock and
 * then finds the offer redeemed: an offer is redeemed once. Answers the ids changed.
 */
export async function recoverBy(
  em: EntityManager,
  q: { business: string; order: string; codes: string[]; email: string | null; phone: string | null; now: Date },
): Promise<{ offers: string[]; cases: string[] }> {
  const { rows } = await sql<{ offers: string[] | null; cases: string[] | null }>`
    with o as (
      update offer set redeemed_at = ${q.now}, redeemed_order_id = ${q.order}, updated_at = ${q.now}
       where business_id = ${q.business} and code = any(${q.codes}::text[]) and redeemed_at is null and expires_at > ${q.now}
      returning id, case_id
    ), c as (
      update guest_case g set status = 'recovered', recovered_at = ${q.now}, recovered_order_id = ${q.order}, updated_at = ${q.now},
             recovered_offer = (select o.id from o where o.case_id = g.id order by o.id limit 1)
       where g.business_id = ${q.business} and g.status <> 'recovered'
         and (g.id in (select case_id from o)
              or (g.status in ('open', 'replied', 'resolved') and g.opened_at > ${q.now}::timestamptz - make_interval(days => ${CAME_BACK_DAYS})
                  and (g.guest_email = ${q.email} or g.guest_phone = ${q.phone})))
      returning g.id
    )
    select (select array_agg(id order by id) from o) as offers, (select array_agg(id order by id) from c) as cases`.execute(db(em));
  return { offers: rows[0].offers ?? [], cases: rows[0].cases ?? [] };
}

// ---- Alerts and replies: the case workers' outbox (case_alert, case_message), issue 35 items 3 and 4. ----

interface CaseWorkDB {
  case_alert: TableOf<CaseAlert, 'business' | 'case'>;
  case_message: TableOf<CaseMessage, 'business' | 'case'>;
}

const work = (em: EntityManager) => db<CaseWorkDB>(em);

/** The tables whose rows are the case workers' jobs. */
export type CaseWorkTable = keyof CaseWorkDB;
export interface CaseJob {
  table: CaseWorkTable;
  id: string;
}

/** The case workers' LISTEN channel: only what queues their work notifies it. */
export const CASE_WORK_CHANNEL = 'case_work';

/** Wakes the case workers of every process once `em`'s transaction commits (kit/signals/signals.ts). */
export async function wakeCaseWorkers(em: EntityManager) {
  wakeAfterCommit(em, CASE_WORK_CHANNEL);
}

/** When the first case job not leased falls due (null: none), for the workers' look at every queue (due.poll.ts). */
export const nextCaseJobDue = sql<Date | null>`least(
  (select due_at from case_alert where due_at is not null and (locked_until is null or locked_until < now()) order by due_at limit 1),
  (select due_at from case_message where due_at is not null and (locked_until is null or locked_until < now()) order by due_at limit 1))`;

/** The members of a business with one of `roles` or one of the membership `ids`, with their account's e-mail. */
export async function membersReached(em: EntityManager, business: string, q: { roles?: readonly string[]; ids?: readonly string[] }) {
  const roles = q.roles ?? [];
  const ids = q.ids ?? [];
  if (!roles.length && !ids.length) return [];
  const { rows } = await sql<{ id: string; role: string; email: string }>`
    select m.id, m.role, u.email from membership m join app_user u on u.id = m.user_id
     where m.business_id = ${business} and (m.role = any(${roles}::text[]) or m.id = any(${ids}::text[])) order by u.email, m.id`.execute(db(em));
  return rows;
}

/** The e-mail addresses of a business's members with one of `roles`, each once. */
export async function memberEmails(em: EntityManager, business: string, roles: readonly string[]): Promise<string[]> {
  return [...new Set((await membersReached(em, business, { roles })).map((m) => m.email))];
}

/** Leases up to `limit` due jobs of `table` to `worker`. */
export const claimCaseJobs = (em: EntityManager, table: CaseWorkTable, q: LeaseClaim): Promise<string[]> => claimDueJobs(em, table, q);

/** Gives back `worker`'s leases of these jobs (shutdown). */
export const releaseCaseJobs = (em: EntityManager, table: CaseWorkTable, worker: string, ids: string[]) => releaseLeasedJobs(em, table, worker, ids);

/** A leased alert (or check) with what its message needs: its case, the business's and the location's names. */
export interface LeasedAlert {
  id: string;
  business_id: string;
  case_id: string;
  kind: string;
  channel: string;
  address: string;
  reason: string;
  attempts: number;
  business_name: string;
  location_name: string | null;
  case_status: string;
  case_severity: string;
  case_reason: string;
  assignee_id: string | null;
  opened_at: Date;
  submission_id: string;
  /** The recipient may still be told: a member, or an outside recipient whose confirmation stands. */
  agreed: boolean;
  /** An outside recipient's link to stop the alerts (its confirmation page's key). */
  consent_token: string | null;
}

/** The alert, while `worker` holds its lease; `lock` also locks its case (a check decides on the case as it stands). */
export async function leasedAlert(em: EntityManager, id: string, worker: string, lock = false): Promise<LeasedAlert | undefined> {
  const { rows } = await sql<LeasedAlert>`
    select a.id, a.business_id, a.case_id, a.kind, a.channel, a.address, a.reason, a.attempts,
           b.name as business_name, l.name as location_name,
           c.status as case_status, c.severity as case_severity, c.reason as case_reason, c.assignee_id, c.opened_at, c.submission_id,
           (a.recipient_id is null or r.status = 'confirmed') as agreed, r.token as consent_token
      from case_alert a
      join guest_case c on c.id = a.case_id
      join business b on b.id = a.business_id
      left join location l on l.id = c.location_id
      left join alert_recipient r on r.id = a.recipient_id
     where a.id = ${id} and a.locked_by = ${worker}
     ${lock ? sql`for update of a, c` : sql``}`.execute(db(em));
  return rows[0];
}

/** What the guest wrote in the submission's text steps, in the order of their answers. */
export async function guestWords(em: EntityManager, business: string, submission: string): Promise<string[]> {
  const { rows } = await sql<{ value: string }>`
    select a.value #>> '{}' as value
      from submission s
      cross join lateral jsonb_array_elements(s.answers) with ordinality as x(answer, n)
      join survey_step st on st.id = x.answer ->> 'step' and st.business_id = s.business_id and st.type = 'text'
      cross join lateral (select x.answer -> 'value') as a(value)
     where s.business_id = ${business} and s.id = ${submission} and jsonb_typeof(a.value) = 'string'
     order by x.n`.execute(db(em));
  return rows.map((r) => r.value).filter((v) => v.trim());
}

/** One alert row per recipient; a recipient already there for this case and kind is skipped (the unique key). */
export async function insertAlerts(em: EntityManager, rows: Array<Insertable<CaseWorkDB['case_alert']>>) {
  if (!rows.length) return;
  await work(em)
    .insertInto('case_alert')
    .values(rows)
    .onConflict((oc) => oc.constraint('case_alert_recipient_uq').doNothing())
    .execute();
}

/** Applies `change` to a leased alert and gives the lease back, only while `worker` holds it. */
export const finishAlert = outboxLeases<CaseWorkDB['case_alert']>('case_alert').finish;

/** A leased outbound message with what its sending needs: the business's name and the guest's contact hashes' inputs. */
export interface LeasedMessage {
  id: string;
  business_id: string;
  case_id: string;
  channel: 'email' | 'sms';
  address: string;
  body: string;
  attempts: number;
  created_at: Date;
  message_id: string | null;
  business_name: string;
  /** The business's Reply-To (its own inbox): the guest's answer to the reply goes there. */
  reply_to: string | null;
  case_reason: string;
}

export async function leasedMessage(em: EntityManager, id: string, worker: string): Promise<LeasedMessage | undefined> {
  const { rows } = await sql<LeasedMessage>`
    select m.id, m.business_id, m.case_id, m.channel, m.address, m.body, m.attempts, m.created_at, m.message_id, coalesce(b.display_name, b.name) as business_name, b.reply_to, c.reason as case_reason
      from case_message m join business b on b.id = m.business_id join guest_case c on c.id = m.case_id
     where m.id = ${id} and m.locked_by = ${worker} and m.status = 'queued'`.execute(db(em));
  return rows[0];
}

/** The case's earlier outbound e-mails (not failed), oldest first: the thread a new e-mail replies to. */
export async function earlierEmails(em: EntityManager, business: string, caseId: string, before: { createdAt: Date; id: string }) {
  return work(em)
    .selectFrom('case_message')
    .select(['id', 'message_id'])
    .where('business_id', '=', business)
    .where('case_id', '=', caseId)
    .where('direction', '=', 'out')
    .where('channel', '=', 'email')
    .where('status', '<>', 'failed')
    .where((eb) => eb.or([eb('created_at', '<', before.createdAt), eb.and([eb('created_at', '=', before.createdAt), eb('id', '<', before.id)])]))
    .orderBy('created_at')
    .orderBy('id')
    .execute();
}

/** Applies `change` and gives the lease back while `worker` holds it; answers the message as it now stands. */
export async function finishMessage(em: EntityManager, business: string, id: string, worker: string, change: Updateable<CaseWorkDB['case_message']>) {
  return work(em)
    .updateTable('case_message')
    .set({ ...change, locked_until: null, locked_by: null, updated_at: sql<Date>`now()` })
    .where('business_id', '=', business)
    .where('id', '=', id)
    .where('locked_by', '=', worker)
    .returning(['id', 'business_id', 'case_id', 'direction', 'channel', 'body', 'status', 'author', 'created_at', 'updated_at'])
    .executeTakeFirst();
}

/** The case threads that texted `phone` (an SMS not failed) since `since`, each with when it last did. */
export async function smsThreadsTo(em: EntityManager, phone: string, since: Date): Promise<SmsThread[]> {
  const { rows } = await sql<{ case_id: string; business_id: string; last_at: Date }>`
    select case_id, business_id, max(created_at) as last_at
      from case_message
     where address = ${phone} and direction = 'out' and channel = 'sms' and status <> 'failed' and created_at > ${since}
     group by case_id, business_id`.execute(db(em));
  return rows.map((r) => ({ caseId: r.case_id, business: r.business_id, lastAt: new Date(r.last_at) }));
}

interface HeldDB {
  held_sms: TableOf<HeldSms>;
}
const held = (em: EntityManager) => db<HeldDB>(em);

/** How many texts from `sender` are held. */
export async function heldCountFrom(em: EntityManager, sender: string): Promise<number> {
  const row = await held(em)
    .selectFrom('held_sms')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('sender', '=', sender)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Drops held texts received before `before`, at most `limit` of them (each hold drops a few: the expiry keeps up). */
export async function expireHeldSms(em: EntityManager, before: Date, limit: number): Promise<number> {
  const { numDeletedRows } = await held(em)
    .deleteFrom('held_sms')
    .where('id', 'in', (eb) => eb.selectFrom('held_sms').select('id').where('created_at', '<', before).limit(limit))
    .executeTakeFirst();
  return Number(numDeletedRows);
}

/** Every business whose cases ever texted `phone`: a STOP opts the number out of each. */
export async function businessesThatTexted(em: EntityManager, phone: string): Promise<string[]> {
  const rows = await work(em)
    .selectFrom('case_message')
    .select('business_id')
    .distinct()
    .where('address', '=', phone)
    .where('direction', '=', 'out')
    .where('channel', '=', 'sms')
    .execute();
  return rows.map((r) => r.business_id);
}

/**
 * Alerts and replies that failed for want of a sender on one of `channels`, due again now while their case is still
 * unresolved (run at a start with those senders). Answers how many.
 */
export async function requeueUnsentCaseJobs(em: EntityManager, channels: string[]): Promise<number> {
  if (!channels.length) return 0;
  let n = 0;
  for (const [table, status] of [
    ['case_alert', 'pending'],
    ['case_message', 'queued'],
  ] as const) {
    const { rows } = await sql<{ id: string }>`
      update ${sql.table(table)} j set status = ${status}, error = null, attempts = 0, due_at = now(), updated_at = now()
        from guest_case c
       where c.business_id = j.business_id and c.id = j.case_id and c.status in ('open', 'replied') and j.status = 'failed'
         and j.error like 'no sender configured%' and j.channel in (${sql.join(channels)})
      returning j.id`.execute(db(em));
    n += rows.length;
  }
  return n;
}
