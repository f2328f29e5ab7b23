import type { MikroORM } from '@mikro-orm/postgresql';
import type { RawBuilder } from 'kysely';
import type { Logger } from 'pino';
import { selectEach } from '../kit/db/db.js';

/**
 * The safety net's period: what no notification told (a NOTIFY lost with a connection or a crash, a lease run out, a
 * row changed by hand) is found within it. An idle process sends this one statement per period, and nothing else.
 */
export const SAFETY_POLL_MS = 15_000;
/** A look asked for by a loop (a job done, a due time reached) comes at most this long after the previous one. */
const SOON_MS = 1_000;
/** setTimeout's longest delay. */
const MAX_DELAY_MS = 2 ** 31 - 1;

/** What a worker loop sleeps on: a timer, or a poke (a notification, a job done, a stop). */
export class Sleeper {
  private poked?: () => void;

  /** Until `delayMs` have passed or poke(). */
  async sleep(delayMs: number): Promise<void> {
    if (delayMs <= 0) return;
    await new Promise<void>((resolve) => {
      const timer = Number.isFinite(delayMs) ? setTimeout(resolve, Math.min(delayMs, MAX_DELAY_MS)) : undefined;
      this.poked = () => (clearTimeout(timer), resolve());
    });
    this.poked = undefined;
  }

  poke(): void {
    this.poked?.();
  }
}

/**
 * When one queue of jobs next has work, as its loop knows it: now (a notification, a lane running low), at a known
 * time (told by whoever queued a job for later, or by the look at every queue), or not known (nothing due that the
 * loop knows of: the safety poll will tell). Times are on the queue's own clock (`now`, injectable for tests).
 * With `gap.ms`, claims come at most that often (on `gap.now`, real time unless a test moves it): what is wanted
 * meanwhile waits for the next, so a burst of wake-ups becomes one claim, and the first after a quiet spell is at once.
 */
export class DueClock {
  private wanted = false;
  private nextDue = Infinity;
  /** The last claim was made because a due time was reached. */
  private dueDriven = false;
  /** Claims in a row made for a due time that found nothing: the looks that follow back off. */
  private fruitless = 0;
  /** When the last claim was taken, on the gap's clock. */
  private lastTaken = -Infinity;
  poll?: DuePoll;

  constructor(
    private readonly sleeper: Sleeper,
    readonly now: () => number = Date.now,
    private readonly gap: { ms: number; now?: () => number } = { ms: 0 },
  ) {}

  /** How long until the gap after the last claim has passed (0 or less: it has). */
  private gapLeft(): number {
    return this.lastTaken + this.gap.ms - (this.gap.now ?? Date.now)();
  }

  /** Work may be due now. */
  wake(): void {
    this.wanted = true;
    this.sleeper.poke();
  }

  /** A job falls due at `at` (ms, on this queue's clock). */
  dueAt(at: number): void {
    if (at <= this.now()) this.wake();
    else this.earliest(at);
  }

  /** The look at every queue found this queue's first job due at `at`, or none. */
  polled(at: number | null): void {
    if (at == null) return;
    // Found due, yet the last claims for a due time found nothing (leased meanwhile, clocks apart): not at once again.
    if (this.fruitless && at <= this.now()) at = this.now() + Math.min(SOON_MS * 2 ** (this.fruitless - 1), SAFETY_POLL_MS);
    this.earliest(at);
  }

  private earliest(at: number) {
    if (at >= this.nextDue) return;
    this.nextDue = at;
    this.sleeper.poke();
  }

  /** Whether a claim is wanted now. */
  ready(): boolean {
    return (this.wanted || this.nextDue <= this.now()) && this.gapLeft() <= 0;
  }

  /** Until when its loop may sleep, on this queue's account (ms from now; Infinity: until told). */
  idleFor(): number {
    return Math.max(this.wanted ? 0 : this.nextDue - this.now(), this.gapLeft());
  }

  /** Whether to claim now; takes the wish (kept while the gap lasts). */
  take(): boolean {
    if (this.gapLeft() > 0) return false;
    if (this.nextDue <= this.now()) {
      this.nextDue = Infinity;
      this.dueDriven = true;
      this.wanted = true;
    }
    const wanted = this.wanted;
    this.wanted = false;
    if (wanted) this.lastTaken = (this.gap.now ?? Date.now)();
    return wanted;
  }

  /**
   * After a claim, how many jobs it got of how many it asked for: a full claim may have left more. A claim for a due
   * time that left nothing due does not know the next one: a look is asked for.
   */
  claimed(got: number, asked: number): void {
    if (got >= asked) this.wanted = true;
    if (this.dueDriven) {
      this.dueDriven = false;
      this.fruitless = got ? 0 : this.fruitless + 1;
      if (got < asked) this.poll?.soon();
    } else if (got) this.fruitless = 0;
  }

  /** A claim failed: wanted again (after the loop's pause). */
  failed(): void {
    this.wanted = true;
    this.dueDriven = false;
  }
}

/**
 * When each queue of the process next has work, read in one statement for all of them (each module gives its part:
 * `nextRequestDue` and the like, in its repository): at start, every SAFETY_POLL_MS after the last look, and soon
 * (at most every SOON_MS) when a loop asks, having run a job that may have scheduled another or having taken the
 * last job it knew of. Between looks, loops learn of work from notifications and from the due times they carry.
 */
export class DuePoll {
  private readonly queues: Array<{ due: RawBuilder<Date | null>; clock: DueClock }> = [];
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;
  private lastLook = 0;
  private looking = false;
  private again = false;
  private stopped = true;

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
  ) {}

  /** A queue, with the part of the statement that answers its first due time. */
  add(due: RawBuilder<Date | null>, clock: DueClock): void {
    this.queues.push({ due, clock });
    clock.poll = this;
  }

  /** The first look now, then the safety poll. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** A look within SOON_MS of the last. */
  soon(): void {
    if (this.looking) this.again = true;
    else this.schedule(this.lastLook + SOON_MS - Date.now());
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private schedule(delayMs: number) {
    if (this.stopped) return;
    const at = Date.now() + Math.max(0, delayMs);
    if (this.timer && this.timerAt <= at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => void this.look(), Math.max(0, delayMs));
    this.timer.unref();
  }

  private async look() {
    this.timer = undefined;
    this.timerAt = Infinity;
    this.lastLook = Date.now();
    this.looking = true;
    try {
      const dues = await selectEach(
        this.orm.em.fork(),
        this.queues.map((q) => q.due),
      );
      // A due time is the database's; each queue compares it with its own clock.
      this.queues.forEach((q, i) => q.clock.polled(dues[i] == null ? null : new Date(dues[i]!).getTime()));
    } catch (err) {
      if (!this.stopped) this.logger.warn({ err }, 'workers: the look for due work failed; the next one comes with the safety poll');
    } finally {
      this.looking = false;
    }
    const again = this.again;
    this.again = false;
    this.schedule(again ? SOON_MS : SAFETY_POLL_MS);
  }
}
