import type { EntityManager, EventSubscriber, FlushEventArgs, TransactionEventArgs } from '@mikro-orm/core';
import type pg from 'pg';
import { ormPool } from '../db/db.js';
import { ListenHub } from './pg-listener.js';

/**
 * Wake-ups sent after commit, never inside a writer's transaction: PostgreSQL serialises the commits of every
 * transaction that notifies on one global lock, so a NOTIFY in the order's or the submission's transaction would
 * make all of them queue behind each other. A write registers what it has to tell (`wakeAfterCommit`,
 * `announceAfterCommit`) in its transaction; once that commits, the process's own listeners hear it at once
 * (ListenHub, no round trip) and every other process through one NOTIFY statement of its own, sent at most every
 * SEND_EVERY_MS with all that gathered meanwhile (several channels and payloads in one statement). A rolled back
 * transaction tells nothing.
 *
 * What is lost with a crash between the commit and the NOTIFY is found by the workers' safety poll; a live event is
 * then missed, as when a subscriber's connection drops.
 */
export const SEND_EVERY_MS = 50;
/** PostgreSQL refuses a payload of 8000 bytes or more: lines are sent in chunks under it. */
const MAX_PAYLOAD_BYTES = 7_900;

/** A channel's wake-ups: whether a job is due now, and the earliest one due later (Infinity: none). */
interface Wake {
  now: boolean;
  later: number;
}

interface Pending {
  em: EntityManager;
  wakes: Map<string, Wake>;
  /** Channel -> lines told. */
  lines: Map<string, string[]>;
}

function merge(wakes: Map<string, Wake>, channel: string, wake: Wake) {
  const into = wakes.get(channel);
  if (!into) wakes.set(channel, { ...wake });
  else {
    into.now ||= wake.now;
    into.later = Math.min(into.later, wake.later);
  }
}

/** A wake's payload: a line '' for a job due now, a line with the ms since the epoch of the earliest due later. */
const wakePayload = (wake: Wake) => [...(wake.now ? [''] : []), ...(wake.later < Infinity ? [String(wake.later)] : [])].join('\n');

/** What a transaction (or savepoint) still open has to tell once it commits, by its transaction object. */
const pending = new WeakMap<object, Pending>();
/** A savepoint's enclosing transaction: what it tells waits for that one's commit. */
const enclosing = new WeakMap<object, object>();

function pendingOf(em: EntityManager): Pending | undefined {
  const trx = em.getTransactionContext();
  if (!trx) return undefined;
  let p = pending.get(trx);
  if (!p) pending.set(trx, (p = { em, wakes: new Map(), lines: new Map() }));
  return p;
}

/**
 * Wakes the workers of `channel` in every process once `em`'s transaction commits (at once when `em` has none: its
 * statements are committed already). `dueAt`: the job it queued falls due then, not now.
 */
export function wakeAfterCommit(em: EntityManager, channel: string, dueAt?: Date | number): void {
  const due = dueAt == null ? 0 : +dueAt;
  const p = pendingOf(em) ?? { em, wakes: new Map(), lines: new Map() };
  merge(p.wakes, channel, due <= Date.now() ? { now: true, later: Infinity } : { now: false, later: due });
  if (!em.getTransactionContext()) send(p);
}

/** Tells every process's listeners of `channel` this line (no newline in it) once `em`'s transaction commits. */
export function announceAfterCommit(em: EntityManager, channel: string, line: string): void {
  const p = pendingOf(em) ?? { em, wakes: new Map(), lines: new Map() };
  let lines = p.lines.get(channel);
  if (!lines) p.lines.set(channel, (lines = []));
  lines.push(line);
  if (!em.getTransactionContext()) send(p);
}

/** Table -> the channels every write of it through the ORM tells (announceWritesOf). */
const announcedTables = new Map<string, Set<string>>();

/**
 * Every write of `tables` the ORM flushes tells `channel`'s listeners in every process once it commits (a line ''):
 * what a NotifiedMemo (notified.memo.ts) listens to. Told by the service after commit, not by a trigger, so no
 * NOTIFY runs in the writer's transaction (nor on a shard: issue 51); a statement written by hand (Kysely, nativeDelete)
 * announces its own change (announceAfterCommit).
 */
export function announceWritesOf(channel: string, tables: readonly string[]): void {
  for (const table of tables) {
    let channels = announcedTables.get(table);
    if (!channels) announcedTables.set(table, (channels = new Set()));
    channels.add(channel);
  }
}

/** A transaction (or savepoint) ended: told by the ORM's transaction events (the kit's inTransaction sends them too). */
function transactionEnded(trx: object | undefined, committed: boolean): void {
  if (!trx) return;
  const p = pending.get(trx);
  if (!p) return;
  pending.delete(trx);
  if (!committed) return;
  const outer = enclosing.get(trx);
  if (!outer) return send(p);
  // A savepoint released: its signals wait for the transaction around it.
  let into = pending.get(outer);
  if (!into) pending.set(outer, (into = { em: p.em, wakes: new Map(), lines: new Map() }));
  for (const [channel, wake] of p.wakes) merge(into.wakes, channel, wake);
  for (const [channel, lines] of p.lines) into.lines.set(channel, [...(into.lines.get(channel) ?? []), ...lines]);
}

/**
 * MikroORM's seam (its transaction and flush events, in the ORM configuration's `subscribers`): every em.transactional,
 * flush and em.begin/commit passes here. A savepoint starts with its enclosing transaction announced by
 * beforeTransactionStart, which is how a savepoint's signals find the transaction they wait for.
 */
class AfterCommitSignals implements EventSubscriber {
  private readonly opening = new WeakMap<object, object>();
  /** A flush's unit of work -> the channels its writes tell (announceWritesOf), once they are written. */
  private readonly flushing = new WeakMap<object, Set<string>>();

  onFlush({ uow }: FlushEventArgs) {
    const channels = new Set<string>();
    for (const change of uow.getChangeSets()) for (const channel of announcedTables.get(change.meta.tableName) ?? []) channels.add(channel);
    if (channels.size) this.flushing.set(uow, channels);
    else this.flushing.delete(uow);
  }

  /** After the flush's statements: in its own transaction (committed by now) or in the one around it (told at its commit). */
  afterFlush({ em, uow }: FlushEventArgs) {
    const channels = this.flushing.get(uow);
    this.flushing.delete(uow);
    for (const channel of channels ?? []) announceAfterCommit(em, channel, '');
  }

  beforeTransactionStart(args: TransactionEventArgs) {
    if (args.transaction) this.opening.set(args.em, args.transaction);
    else this.opening.delete(args.em);
  }

  afterTransactionStart(args: TransactionEventArgs) {
    const outer = this.opening.get(args.em);
    this.opening.delete(args.em);
    if (outer && args.transaction) enclosing.set(args.transaction, outer);
  }

  afterTransactionCommit(args: TransactionEventArgs) {
    transactionEnded(args.transaction, true);
  }

  afterTransactionRollback(args: TransactionEventArgs) {
    transactionEnded(args.transaction, false);
  }
}

export const afterCommitSignals: EventSubscriber = new AfterCommitSignals();

/** Per ORM (process): what waits to be sent to the other processes, and when the last NOTIFY went. */
class Sender {
  private readonly wakes = new Map<string, Wake>();
  private readonly lines = new Map<string, string[]>();
  private lastSent = 0;
  private timer?: NodeJS.Timeout;
  private sending = false;
  private sent?: Promise<void>;

  private constructor(
    private readonly em: EntityManager,
    private readonly hub: ListenHub,
  ) {}

  private static readonly senders = new WeakMap<object, Sender>();

  static of(em: EntityManager): Sender {
    let s = Sender.senders.get(em.config);
    if (!s) Sender.senders.set(em.config, (s = new Sender(em, ListenHub.of(em))));
    return s;
  }

  static existing(em: EntityManager): Sender | undefined {
    return Sender.senders.get(em.config);
  }

  /** Sends what waits now rather than at its time, once the statement in flight (if any) is done. */
  async drain() {
    clearTimeout(this.timer);
    this.timer = undefined;
    await this.sent;
    if (this.wakes.size || this.lines.size) await this.flush();
  }

  add(p: Pending) {
    for (const [channel, wake] of p.wakes) {
      merge(this.wakes, channel, wake);
      this.hub.deliverLocally(channel, wakePayload(wake));
    }
    for (const [channel, lines] of p.lines) {
      let all = this.lines.get(channel);
      if (!all) this.lines.set(channel, (all = []));
      all.push(...lines);
      this.hub.deliverLocally(channel, lines.join('\n'));
    }
    this.schedule();
  }

  private schedule() {
    if (this.timer || this.sending) return;
    this.timer = setTimeout(() => void (this.sent = this.flush()), Math.max(0, this.lastSent + SEND_EVERY_MS - Date.now()));
    this.timer.unref();
  }

  private async flush() {
    this.timer = undefined;
    const notifications: string[] = [];
    const mark = `@${this.hub.origin} `;
    for (const [channel, wake] of this.wakes) notifications.push(channel, mark + wakePayload(wake));
    for (const [channel, lines] of this.lines) for (const chunk of chunks(lines, MAX_PAYLOAD_BYTES - mark.length)) notifications.push(channel, mark + chunk);
    this.wakes.clear();
    this.lines.clear();
    if (!notifications.length) return;
    this.sending = true;
    try {
      const calls = Array.from({ length: notifications.length / 2 }, (_, i) => `pg_notify($${2 * i + 1}, $${2 * i + 2})`);
      const pool: pg.Pool = await ormPool(this.em);
      await pool.query(`select ${calls.join(', ')}`, notifications);
    } catch {
      // The database is unreachable or the ORM closed: the workers' safety poll finds what this would have woken.
    } finally {
      // Counted from the answer: the next statement leaves SEND_EVERY_MS after this one was done, however long it
      // waited for a pooled connection.
      this.lastSent = Date.now();
      this.sending = false;
      if (this.wakes.size || this.lines.size) this.schedule();
    }
  }
}

/** Lines joined by newlines into payloads of at most `max` bytes each (an empty line is one too: a memo's "forget"). */
function chunks(lines: string[], max: number): string[] {
  const out: string[] = [];
  let current: string | undefined;
  for (const line of lines) {
    if (current !== undefined && Buffer.byteLength(current) + 1 + Buffer.byteLength(line) > max) {
      out.push(current);
      current = undefined;
    }
    current = current === undefined ? line : `${current}\n${line}`;
  }
  if (current !== undefined) out.push(current);
  return out;
}

/**
 * Sends at once what this process has still to tell the others: before its ORM closes, so that a stopping service or
 * a short-lived admin command does not leave its last wake-ups to the other processes' safety poll.
 */
export async function flushSignals(em: EntityManager): Promise<void> {
  await Sender.existing(em)?.drain();
}

function send(p: Pending) {
  if (p.wakes.size || p.lines.size) Sender.of(p.em).add(p);
}
