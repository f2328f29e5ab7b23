import { workerLeases } from '../../kit/db/outbox-job.leases.js';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { NO_SENDER, type Mailer, type SmsProvider } from '../../shared/sender.ports.js';
import type { SendingBudgets } from '../sending/index.js';
import { contactHash, suppressionOf } from '../flow/index.js';
import { consentUrl } from './alert-recipient.service.js';
import { confirmationLeases, leasedConfirmation } from './alert.repo.js';

const CONFIRMATION_LEASE_MS = 60_000;
/** Waits before the 2nd to 5th try of a send that failed for a reason that may pass; then it is given up. */
const RETRY_MS = [15_000, 60_000, 300_000, 1_800_000];

/** A business's name as a message quotes it: on one line, at most `max` characters. */
function quotedName(name: string, max = 60): string {
  const line = name.replace(/\s+/g, ' ').trim();
  return `"${line.length > max ? `${line.slice(0, max - 1)}…` : line}"`;
}

/**
 * Sends each outside recipient's one confirmation (alert_recipient rows due), on the outbox loop: the business's
 * name, what its alerts carry, and the link to agree or refuse. Nothing of any guest is in it. Recorded only while
 * this worker holds the lease; a crash between the send and the record sends it again when the lease runs out.
 */
export class AlertConfirmationTask {
  constructor(
    private readonly orm: MikroORM,
    private readonly senders: { mail?: Mailer; sms?: SmsProvider },
    private readonly options: { publicUrl: string; workerId: string; clock: () => Date; logger: Logger; sending: SendingBudgets },
  ) {}

  /** The outbox loop claims and releases through these (kit/db/outbox-job.leases.ts). */
  private readonly leases = workerLeases(confirmationLeases, this.orm, { leaseMs: CONFIRMATION_LEASE_MS, ...this.options });
  readonly claim = this.leases.claim;
  readonly release = this.leases.release;

  async run(id: string): Promise<void> {
    const em = this.orm.em.fork();
    const worker = this.options.workerId;
    const r = await leasedConfirmation(em, id, worker);
    if (!r) return; // answered meanwhile, or the lease went to another worker
    const finish = (change: Parameters<typeof confirmationLeases.finish>[3]) => confirmationLeases.finish(em, id, worker, change, r.business_id);
    // An address or number that opted out of this business (an SMS STOP, an unsubscribe) already said no: it is
    // declined, not asked.
    const hashes = { email: r.channel === 'email' ? contactHash('email', r.address) : null, sms: r.channel === 'sms' ? contactHash('sms', r.address) : null };
    if ((await suppressionOf(em, r.business_id, [r.channel], hashes)).reason === 'opted_out') {
      return finish({ status: 'declined', declined_at: this.options.clock(), due_at: null });
    }
    if (!(r.channel === 'sms' ? this.senders.sms : this.senders.mail)) return finish({ error: NO_SENDER[r.channel], due_at: null });
    // The business's budget of the day on the channel: spent, the confirmation waits for its reset (held, not lost).
    const reservation = await this.options.sending.reserve(
      em,
      { business: r.business_id, channel: r.channel, kind: 'alert_confirmation' },
      this.options.clock(),
    );
    if (!reservation.reserved) return finish({ due_at: reservation.until });
    const link = consentUrl(this.options.publicUrl, r.token);
    const name = quotedName(r.business_name);
    let outcome;
    if (r.channel === 'sms') {
      outcome = await this.senders.sms!.send(
        r.address,
        `${quotedName(r.business_name, 40)} asks to text you alerts about its unhappy guests. Nothing more is sent unless you agree: ${link}`,
      );
    } else {
      outcome = await this.senders.mail!.send({
        to: r.address,
        subject: `${name} asks to send you alerts about its guests' feedback`,
        text: [
          `${name} hears from this service at once when a guest is unhappy, and asks that its alerts also go to ${r.address}. Each alert would carry the guest's score, their own words and a link to the case.`,
          '',
          'Nothing more is sent to this address unless you agree. To agree, or to refuse for good, open:',
          '',
          link,
          '',
          `If you do not know ${name}, refuse there or ignore this e-mail: either way you get none of its alerts.`,
          '',
        ].join('\n'),
        // RFC 2369 and RFC 8058: a mail client's unsubscribe button refuses for good.
        headers: { 'List-Unsubscribe': `<${link}/decline>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
      });
    }
    if (!outcome.ok) await reservation.giveBack();
    const now = this.options.clock();
    const attempts = r.attempts + 1;
    if (outcome.ok) return finish({ attempts, error: null, due_at: null, sent_at: now });
    if (!outcome.permanent && attempts <= RETRY_MS.length) {
      // The job and the channel, never the address: the senders' errors are scrubbed of it (src/senders).
      this.options.logger.warn({ recipient: id, channel: r.channel, error: outcome.error }, 'alert confirmation send failed; will retry');
      return finish({ attempts, error: outcome.error ?? null, due_at: new Date(now.getTime() + RETRY_MS[attempts - 1]) });
    }
    return finish({ attempts, error: outcome.error ?? null, due_at: null });
  }
}
