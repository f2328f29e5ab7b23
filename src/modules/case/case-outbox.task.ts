import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { settledSend, type SendSettled } from '../../kit/db/outbox-job.leases.js';
import type { Logger } from 'pino';
import { NO_SENDER, type Mailer, type SendOutcome, type SmsProvider } from '../../shared/sender.ports.js';
import { recordEvent } from '../event/index.js';
import { consentUrl } from '../alert/index.js';
import { contactHash, suppressionOf } from '../flow/index.js';
import { presentMessage } from './case-message.service.js';
import type { SendingBudgets } from '../sending/index.js';
import type { CaseMessage } from './case-message.entity.js';
import { replyCodeLine } from './inbound-sms.rules.js';
import { CaseAlert } from './case-alert.entity.js';
import {
  claimCaseJobs,
  earlierEmails,
  finishAlert,
  finishMessage,
  guestWords,
  insertAlerts,
  leasedAlert,
  leasedMessage,
  memberEmails,
  releaseCaseJobs,
  wakeCaseWorkers,
  type CaseJob,
  type LeasedAlert,
  type LeasedMessage,
} from './case.repo.js';

/** Lease of a claimed job: a worker that dies holding it gives it back by letting it expire. */
const CASE_LEASE_MS = 60_000;
/** Waits before the 2nd to 5th try of a send that failed for a reason that may pass; then it is failed. */
const RETRY_MS = [15_000, 60_000, 300_000, 1_800_000];

export interface CaseSenders {
  mail?: Mailer;
  sms?: SmsProvider;
}

/** At most `max` characters, cut on a word where one is near. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${space > max * 0.6 ? cut.slice(0, space) : cut}…`;
}

/**
 * Where the guest was, named once: the business at its location, or the location alone when its name already says
 * the business's ("Cafe Nihari Gulberg" of Cafe Nihari), so a subject never reads "Cafe Nihari at Cafe Nihari Gulberg".
 */
function placeOf(business: string, location: string | null): string {
  if (!location?.trim()) return business;
  const words = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim();
  return ` ${words(location)} `.includes(` ${words(business)} `) ? location : `${business} at ${location}`;
}

/**
 * The case module's outbound work, step by step: an alert to one recipient, an escalation check falling due, and a
 * reply to the guest. Each step is recorded only while this worker still holds the lease; the message goes out
 * between the lease and the record, so a crash in that window sends again when the lease expires (at least once,
 * like every queue here).
 */
export class CaseOutboxTask {
  constructor(
    private readonly orm: MikroORM,
    private readonly senders: CaseSenders,
    private readonly options: { publicUrl: string; mailFrom: string; workerId: string; clock: () => Date; logger: Logger; sending: SendingBudgets },
  ) {}

  /** The domain of Message-IDs: the From address's. */
  private get mailDomain(): string {
    return /@([^<>@\s]+)>?\s*$/.exec(this.options.mailFrom)?.[1] ?? 'localhost.localdomain';
  }

  /** Leases up to `limit` due jobs to this worker: alerts first (they are the minute that counts), then replies. */
  async claim(limit: number): Promise<CaseJob[]> {
    const em = this.orm.em.fork();
    const q = { leaseMs: CASE_LEASE_MS, worker: this.options.workerId, now: this.options.clock(), limit };
    const alerts = await claimCaseJobs(em, 'case_alert', q);
    const messages = alerts.length < limit ? await claimCaseJobs(em, 'case_message', { ...q, limit: limit - alerts.length }) : [];
    return [...alerts.map((id) => ({ table: 'case_alert' as const, id })), ...messages.map((id) => ({ table: 'case_message' as const, id }))];
  }

  /** Gives back leases that will not run (shutdown). */
  async release(jobs: CaseJob[]) {
    const em = this.orm.em.fork();
    for (const table of ['case_alert', 'case_message'] as const) {
      await releaseCaseJobs(
        em,
        table,
        this.options.workerId,
        jobs.filter((j) => j.table === table).map((j) => j.id),
      );
    }
  }

  async run(job: CaseJob): Promise<void> {
    const em = this.orm.em.fork();
    if (job.table === 'case_message') {
      const m = await leasedMessage(em, job.id, this.options.workerId);
      if (m) await this.reply(em, m);
      return;
    }
    const a = await leasedAlert(em, job.id, this.options.workerId);
    if (!a) return; // the lease went to another worker meanwhile
    if (a.kind === 'check') await this.check(em, a.id);
    else await this.alert(em, a);
  }

  /**
   * An urgent case still open and unassigned when its check falls due: one escalation to each owner (the unique key
   * keeps it to one each, however often the check runs). Decided on the case locked, so an assignment racing it
   * either lands first (no escalation) or after (the escalation stands).
   */
  private async check(em: EntityManager, id: string) {
    const now = this.options.clock();
    await em.transactional(async (tx) => {
      const a = await leasedAlert(tx, id, this.options.workerId, true);
      if (!a) return;
      const still = a.case_status === 'open' && !a.assignee_id && a.case_severity === 'urgent';
      if (still) {
        const owners = await memberEmails(tx, a.business_id, ['owner']);
        await insertAlerts(
          tx,
          owners.map((address) => ({
            id: new CaseAlert().id,
            business_id: a.business_id,
            case_id: a.case_id,
            kind: 'escalation' as const,
            channel: 'email',
            address,
            reason: a.case_reason,
            status: 'pending' as const,
            attempts: 0,
            due_at: now,
            created_at: now,
            updated_at: now,
          })),
        );
        if (owners.length) await wakeCaseWorkers(tx);
      }
      await finishAlert(tx, id, this.options.workerId, { status: still ? 'sent' : 'skipped', due_at: null, sent_at: still ? now : null }, a.business_id);
    });
  }

  private async alert(em: EntityManager, a: LeasedAlert) {
    // Declined since it was queued (a retry, a lease run out): never sent.
    if (!a.agreed) return finishAlert(em, a.id, this.options.workerId, { status: 'skipped', due_at: null }, a.business_id);
    const channel = a.channel as 'email' | 'sms';
    const sender = channel === 'email' ? this.senders.mail : this.senders.sms;
    if (!sender) {
      this.options.logger.warn({ alert: a.id, channel }, `alert not sent: ${NO_SENDER[channel]}; it is sent after a restart with one, while its case is open`);
      return finishAlert(em, a.id, this.options.workerId, { status: 'failed', error: NO_SENDER[channel], due_at: null }, a.business_id);
    }
    // The business's budget of the day: spent, the alert waits for its reset (held, not lost).
    const reservation = await this.options.sending.reserve(
      em,
      { business: a.business_id, channel, kind: a.kind === 'escalation' ? 'escalation' : 'alert' },
      this.options.clock(),
    );
    if (!reservation.reserved) return finishAlert(em, a.id, this.options.workerId, { due_at: reservation.until }, a.business_id);
    const outcome = await this.deliverAlert(a, await guestWords(em, a.business_id, a.submission_id));
    if (!outcome.ok) await reservation.giveBack();
    await this.settle(a.attempts, outcome, (change) => finishAlert(em, a.id, this.options.workerId, change, a.business_id), { alert: a.id, channel });
  }

  private deliverAlert(a: LeasedAlert, words: string[]): Promise<SendOutcome> {
    const place = placeOf(a.business_name, a.location_name);
    const link = `${this.options.publicUrl}/portal/cases/${a.case_id}`;
    const minutes = Math.max(1, Math.round((this.options.clock().getTime() - new Date(a.opened_at).getTime()) / 60_000));
    const escalation = a.kind === 'escalation';
    // An outside recipient's way out: its confirmation page, where one press stops the business's alerts.
    const stop = a.consent_token ? consentUrl(this.options.publicUrl, a.consent_token) : null;
    if (a.channel === 'sms') {
      const said = words.length ? ` "${clip(words.join(' / '), 200)}"` : '';
      const head = escalation ? `Still open and unassigned after ${minutes} min: ` : '';
      return this.senders.sms!.send(a.address, `${head}${place}: ${a.reason}.${said} ${link}${stop ? ` Stop: ${stop}` : ''}`);
    }
    const urgent = a.case_severity === 'urgent' ? 'Urgent: ' : '';
    const subject = escalation
      ? `Still unanswered: urgent case at ${place}, open and unassigned for ${minutes} minutes`
      : `${urgent}Unhappy guest at ${place}: ${a.reason}`;
    const said = words.length ? words.map((w) => `  "${clip(w, 2_000)}"`).join('\n') : '  (no written comment)';
    const text = [
      escalation
        ? `An urgent case at ${place} is still open and nobody has taken it, ${minutes} minutes after the guest answered.`
        : `A guest of ${place} left feedback that needs a reply.`,
      '',
      `Score: ${a.reason}`,
      '',
      `In the guest's words:`,
      said,
      '',
      `Open the case: ${link}`,
      '',
      ...(stop ? [`To stop ${a.business_name}'s alerts to this address: ${stop}`, ''] : []),
    ].join('\n');
    // RFC 2369 and RFC 8058 for an outside recipient: a mail client's unsubscribe button declines for good.
    const headers = stop ? { 'List-Unsubscribe': `<${stop}/decline>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' } : undefined;
    // From the business's name (on the configured address), as its feedback requests and replies are.
    return this.senders.mail!.send({ to: a.address, fromName: a.business_name, subject: clip(subject, 200), text, headers });
  }

  /** A reply to the guest: checked against the opt-out list again (the guest may have opted out since), then sent. */
  private async reply(em: EntityManager, m: LeasedMessage) {
    const reach = await suppressionOf(em, m.business_id, [m.channel], { email: contactHash('email', m.address), sms: contactHash('sms', m.address) });
    const finish = (change: Parameters<typeof finishMessage>[4]) => this.finishReply(em, m.business_id, m.id, change);
    if (reach.reason) return finish({ status: 'failed', error: 'the guest opted out of this channel', due_at: null });
    const sender = m.channel === 'email' ? this.senders.mail : this.senders.sms;
    if (!sender) return finish({ status: 'failed', error: NO_SENDER[m.channel], due_at: null });
    const domain = this.mailDomain;
    const idOf = (row: { id: string; message_id: string | null }) => row.message_id ?? `<${row.id}@${domain}>`;
    const messageId = idOf(m);
    let outcome: SendOutcome;
    // Every SMS of a case carries its reply code: the guest's answer finds this thread even when others texted them.
    if (m.channel === 'sms') outcome = await this.senders.sms!.send(m.address, `${m.body}${replyCodeLine(m.case_id)}`);
    else {
      // Threaded: In-Reply-To the case's previous e-mail, References every earlier one (RFC 5322 3.6.4).
      const thread = (await earlierEmails(em, m.business_id, m.case_id, { createdAt: new Date(m.created_at), id: m.id })).map(idOf);
      outcome = await this.senders.mail!.send({
        to: m.address,
        fromName: m.business_name,
        replyTo: m.reply_to ?? undefined,
        subject: `${thread.length ? 'Re: ' : ''}Your feedback to ${clip(m.business_name, 150)}`,
        text: `${m.body}\n`,
        messageId,
        inReplyTo: thread.at(-1),
        references: thread.length ? thread : undefined,
      });
    }
    await this.settle(
      m.attempts,
      outcome,
      (change) => finish({ ...change, ...(change.status === 'sent' ? { message_id: m.channel === 'email' ? messageId : null } : {}) }),
      { message: m.id, channel: m.channel },
    );
  }

  /** Records the reply's step, and `casemessage.updated` when its status changed, in one transaction. */
  private async finishReply(em: EntityManager, business: string, id: string, change: Parameters<typeof finishMessage>[4]) {
    await em.transactional(async (tx) => {
      const row = await finishMessage(tx, business, id, this.options.workerId, change);
      if (!row || !change.status) return;
      const message = {
        id: row.id,
        business: row.business_id,
        case: row.case_id,
        direction: row.direction,
        channel: row.channel,
        body: row.body,
        status: row.status,
        author: row.author,
        createdAt: new Date(row.created_at),
        updatedAt: new Date(row.updated_at),
      } as CaseMessage;
      recordEvent(tx, row.business_id, 'casemessage.updated', presentMessage(message));
    });
  }

  /** Settles a sent job (kit/db/outbox-job.leases.ts), saying so in the log when it will be tried again. */
  private async settle(before: number, outcome: SendOutcome, finish: (change: SendSettled) => Promise<unknown>, log: Record<string, string>) {
    const change = settledSend(outcome, before, this.options.clock(), RETRY_MS);
    // The job and the channel, never the address: the senders' errors are scrubbed of it (src/senders).
    if (!change.status) this.options.logger.warn({ ...log, error: outcome.error }, 'case message send failed; will retry');
    return finish(change);
  }
}
