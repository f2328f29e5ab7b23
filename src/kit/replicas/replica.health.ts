import { replicaLag, replicaUsable } from '../metrics/metrics.js';

/** What the health check needs of a server: one statement's rows (a `pg` pool). */
export interface Queryable {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
}

export interface ReplicaLink {
  name: string;
  pool(): Promise<Queryable>;
}

export interface ReplicaHealthOptions {
  /** REPLICA_MAX_LAG: a replica further behind than this is skipped. */
  maxLagMs: number;
  /** How long a check's answer holds: reads meanwhile trust it, the first read after it runs the next check. */
  checkEveryMs?: number;
  /** A server that has not answered a check within this is taken as down until the next one. */
  timeoutMs?: number;
  /** Told when a replica is skipped or used again. */
  log?: (level: 'info' | 'warn', message: string, fields: Record<string, unknown>) => void;
}

interface ReplicaState {
  usable: boolean;
  /** Why it is skipped. */
  problem?: string;
}

/** What a replica says of itself: a standby, how far it has replayed, how old its last replayed transaction is. */
const REPLICA_SQL = `select pg_is_in_recovery() as standby, pg_last_wal_replay_lsn()::text as replay,
  extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp())::float8 as behind`;

/** A WAL position ('16/B374D848') as a number, to compare. */
export function lsnOf(text: unknown): bigint {
  if (typeof text !== 'string') return 0n;
  const [high, low] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Retries of a replica that is behind the primary's position, to tell WAL in flight (it moves) from lag. */
const CATCH_UP_TRIES = 4;
const CATCH_UP_PAUSE_MS = 25;

/**
 * Which streaming replicas a lag-tolerant read may use now: those that answered the last check and were at most
 * `maxLagMs` behind. Checked lazily, only when reads come (`ready()`), at most once per `checkEveryMs`: an idle process
 * sends nothing. A replica that fails a statement is dropped at once (`failed`) and checked again with the next check.
 */
export class ReplicaHealth {
  readonly maxLagMs: number;
  readonly checkEveryMs: number;
  private readonly timeoutMs: number;
  private readonly states: ReplicaState[];
  /** When the check whose answer stands began: its figures hold for that moment or later. */
  private checkedAt = -Infinity;
  private checking?: Promise<void>;
  private turn = 0;

  constructor(
    private readonly primary: () => Promise<Queryable>,
    private readonly replicas: readonly ReplicaLink[],
    private readonly options: ReplicaHealthOptions,
  ) {
    this.maxLagMs = options.maxLagMs;
    this.checkEveryMs = options.checkEveryMs ?? 1_000;
    this.timeoutMs = options.timeoutMs ?? 1_000;
    this.states = replicas.map(() => ({ usable: false, problem: 'not checked yet' }));
  }

  get configured(): boolean {
    return this.replicas.length > 0;
  }

  /**
   * Whether a replica may take reads now. Past `checkEveryMs` a check starts; a read waits for it only when the figures
   * are older than `staleness` (after a quiet spell), else it goes by them while the check runs.
   */
  async ready(): Promise<boolean> {
    if (!this.replicas.length) return false;
    const age = performance.now() - this.checkedAt;
    if (age >= this.checkEveryMs) {
      const check = (this.checking ??= this.check().finally(() => (this.checking = undefined)));
      if (age >= this.staleness) await check;
    }
    return this.states.some((s) => s.usable);
  }

  /** How old the figures a read goes by may be: a check's period, then the check itself (bounded by its timeout). */
  get staleness(): number {
    return this.checkEveryMs + this.timeoutMs;
  }

  /** The replica the next read runs on (in turn among the usable ones), or undefined for the primary. */
  pick(): number | undefined {
    const n = this.states.length;
    for (let i = 0; i < n; i++) {
      const index = (this.turn + i) % n;
      if (this.states[index].usable) {
        this.turn = index + 1;
        return index;
      }
    }
    return undefined;
  }

  /** A statement failed on replica `index` for a reason of the replica's (down, shutting down): skip it until the next check. */
  failed(index: number, err: unknown): void {
    this.set(index, { usable: false, problem: `failed a statement: ${(err as Error)?.message ?? String(err)}` }, Infinity);
  }

  /**
   * How far behind each replica is, as an upper bound on how stale its data may be. Caught up (it has replayed all the
   * primary had flushed when this check began): 0. Else the least of: the time since the latest earlier check whose
   * primary position it has replayed (`marks`), and the age of the last transaction it replayed. The age alone would
   * grow on an idle primary, where a replica has nothing to replay and is not behind at all; WAL still in flight is
   * given a few short retries first.
   */
  private async check(): Promise<void> {
    const started = performance.now();
    const deadline = started + this.timeoutMs;
    const primary = await this.within(
      deadline,
      this.primary().then((pool) => pool.query('select pg_current_wal_flush_lsn()::text as lsn')),
    ).then(
      (r) => lsnOf(r.rows[0].lsn),
      () => undefined,
    );
    if (primary !== undefined) this.mark(started, primary);
    await Promise.all(
      this.replicas.map(async (replica, index) => {
        try {
          const pool = await this.within(deadline, replica.pool());
          const ask = () => this.within(deadline, pool.query(REPLICA_SQL)).then((r) => r.rows[0]);
          let row = await ask();
          if (!row.standby) return this.set(index, { usable: false, problem: 'not a standby (pg_is_in_recovery() is false)' }, Infinity);
          let replay = lsnOf(row.replay);
          for (let tries = 0; primary !== undefined && replay < primary && tries < CATCH_UP_TRIES && performance.now() < deadline; tries++) {
            await sleep(CATCH_UP_PAUSE_MS);
            row = await ask();
            const moved = lsnOf(row.replay) > replay;
            replay = lsnOf(row.replay);
            if (!moved) break;
          }
          const lagMs = primary !== undefined && replay >= primary ? 0 : this.lagOf(replay, row.behind);
          const usable = lagMs <= this.maxLagMs;
          this.set(
            index,
            usable ? { usable } : { usable, problem: `behind by ${Number.isFinite(lagMs) ? `${(lagMs / 1_000).toFixed(1)} s` : 'an unknown time'}` },
            lagMs,
          );
        } catch (err) {
          this.set(index, { usable: false, problem: `down: ${(err as Error)?.message || String(err)}` }, Infinity);
        }
      }),
    );
    this.checkedAt = started;
  }

  /** The primary's position at each recent check, oldest first: what a replica has replayed says how old its data is. */
  private readonly marks: Array<{ at: number; lsn: bigint }> = [];

  private mark(at: number, lsn: bigint): void {
    this.marks.push({ at, lsn });
    const keepFrom = at - this.maxLagMs - 2 * this.staleness;
    while (this.marks.length > 64 || (this.marks.length > 1 && this.marks[0].at < keepFrom)) this.marks.shift();
  }

  private lagOf(replay: bigint, behind: unknown): number {
    let lagMs = behind == null ? Infinity : Math.max(0, Number(behind) * 1_000);
    for (let i = this.marks.length - 1; i >= 0; i--) {
      if (this.marks[i].lsn <= replay) {
        lagMs = Math.min(lagMs, performance.now() - this.marks[i].at);
        break;
      }
    }
    return lagMs;
  }

  private set(index: number, state: ReplicaState, lagMs: number): void {
    const name = this.replicas[index].name;
    const was = this.states[index];
    this.states[index] = state;
    replicaLag.set({ replica: name }, lagMs / 1_000);
    replicaUsable.set({ replica: name }, state.usable ? 1 : 0);
    if (was.usable && !state.usable)
      this.options.log?.('warn', `read replica ${name} skipped: ${state.problem}`, { replica: name, maxLagSeconds: this.maxLagMs / 1_000 });
    else if (!was.usable && state.usable) this.options.log?.('info', `read replica ${name} in use`, { replica: name });
  }

  /** `work`, or a failure at `deadline`: a server that does not answer (a dropped network) must not hold reads up. */
  private within<T>(deadline: number, work: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${this.timeoutMs} ms`)), Math.max(0, deadline - performance.now()));
    });
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }
}
