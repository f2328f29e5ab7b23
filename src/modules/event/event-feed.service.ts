import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { PgListener } from '../../kit/signals/pg-listener.js';
import type { GraphQLContext } from '../../kit/graphql/context.js';
import { AppError } from '../../shared/errors.js';
import { EVENT_TYPES } from './event.inputs.js';
import { Event } from './event.entity.js';
import { presentEvent } from './event.service.js';
import { EVENTS_CHANNEL } from './event.signal.js';
import { mayHear } from './event.policy.js';
import { forgetGoneSubscribers, registerSubscriber, unregisterSubscriber } from './event.repo.js';

export type PresentedEvent = ReturnType<typeof presentEvent>;

/**
 * The source of the `eventRecorded` subscription: the business's events of `types` (default: every type the token
 * may hear) from now on, each heard only while the token may hear it. Unknown types are a 400; types the token may
 * not hear a 403 naming them.
 */
export function liveEventsFor(context: GraphQLContext, business: string, types: string[] | null | undefined) {
  const scopes = context.auth!.scopes; // @Authorized() has checked the token and its business
  if (types?.length) {
    const unknown = types.filter((t) => !EVENT_TYPES.includes(t));
    if (unknown.length) throw AppError.validation([{ field: 'types', message: `not event types: ${unknown.join(', ')}` }]);
    const denied = types.filter((t) => !mayHear(scopes, t));
    if (denied.length)
      throw new AppError('forbidden', `This token may not hear ${denied.join(', ')}: it lacks the read scope of their resource (or events:read)`);
  }
  const wanted = new Set(types?.length ? types : EVENT_TYPES.filter((t) => mayHear(scopes, t)));
  if (!wanted.size) throw new AppError('forbidden', 'This token may hear no event: it needs events:read or the read scope of a resource');
  if (!context.liveEvents) throw new AppError('bad_request', 'Subscriptions run over a WebSocket to /graphql (the graphql-ws protocol)');
  // Asked again at each event: on a WebSocket `context.auth` follows the connection's token check, so a member
  // demoted meanwhile stops hearing what the new role may not read.
  return context.liveEvents.subscribe(business, (type) => wanted.has(type) && !!context.auth && mayHear(context.auth.scopes, type));
}

/** Events queued for one slow subscriber at most; past it the subscription ends (the client resubscribes and lists). */
const MAX_QUEUED = 1_000;

/** A process's event_subscriber rows last this long unless refreshed, every REFRESH_MS while it has subscribers. */
const REGISTRATION_SECONDS = 60;
const REFRESH_MS = 20_000;

interface Listener {
  business: string;
  wants(type: string): boolean;
  push(event: PresentedEvent): void;
  fail(err: Error): void;
}

/**
 * The live events of this process's subscribers, whoever wrote them: fed by LISTEN on EVENTS_CHANNEL (the events of
 * this process's own writes without a round trip), each notification's events read in one statement however many
 * subscribers want them, then handed to each in the order told. Events are told on that channel only for businesses
 * some process has registered in event_subscriber, or with a webhook (event.signal.ts): this process registers a
 * business when its first subscriber of it arrives, refreshes while any stays, and removes the row when the last leaves. Those writes run one after another (`registry`), so a removal never overtakes a later
 * registration of the same business.
 */
export class EventFeed {
  private readonly listeners = new Set<Listener>();
  private readonly listener: PgListener;
  /** Reads in flight, chained so that events reach subscribers in the order they were notified. */
  private chain: Promise<void> = Promise.resolve();
  private readonly processId = `${os.hostname().slice(0, 30)}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private registry: Promise<unknown> = Promise.resolve();
  private refresh?: NodeJS.Timeout;
  /** When this process's rows were last written (all of them, or none needed): they last REGISTRATION_SECONDS. */
  private refreshedAt = Date.now();

  constructor(
    private readonly orm: MikroORM,
    private readonly logger: Logger,
  ) {
    this.listener = new PgListener(
      orm,
      [EVENTS_CHANNEL],
      { notification: (_, payload) => this.notified(payload), lost: () => this.lost() },
      logger,
      'live events',
    );
  }

  async start() {
    await this.listener.start();
    this.refresh = setInterval(() => void this.refreshRegistrations(), REFRESH_MS).unref();
  }

  /**
   * Keeps this process's rows alive while it has subscribers. A failure is logged and the next tick tries again;
   * when the rows could expire before that tick, every subscription ends instead (as when the LISTEN connection is
   * lost): its events would stop being notified, and a subscriber that hears nothing must know to subscribe again.
   */
  private async refreshRegistrations() {
    const businesses = this.businesses();
    if (!businesses.length) {
      this.refreshedAt = Date.now();
      return;
    }
    try {
      await this.registered(async (em) => {
        await registerSubscriber(em, this.processId, businesses, REGISTRATION_SECONDS);
        await forgetGoneSubscribers(em);
      });
      this.refreshedAt = Date.now();
    } catch {
      if (Date.now() - this.refreshedAt >= REGISTRATION_SECONDS * 1000 - REFRESH_MS) this.lost();
    }
  }

  async stop() {
    clearInterval(this.refresh);
    await this.listener.stop();
    for (const l of this.listeners) l.fail(new AppError('unavailable', 'The service is shutting down: subscribe again'));
    this.listeners.clear();
    await this.unregister(null).catch(() => {});
  }

  /**
   * The events of `business` from now on whose type `wants` accepts, as an async iterator (a GraphQL subscription's
   * source), once this process's registration of the business has committed. `return()` (the client unsubscribing
   * or going away) removes it.
   */
  async subscribe(business: string, wants: (type: string) => boolean): Promise<AsyncIterableIterator<PresentedEvent>> {
    const queue: PresentedEvent[] = [];
    let waiting: ((r: IteratorResult<PresentedEvent>) => void) | undefined;
    let failed: ((err: Error) => void) | undefined;
    let error: Error | undefined;
    let done = false;
    const feed = this;
    const listener: Listener = {
      business,
      wants,
      push(event) {
        if (waiting) {
          const resolve = waiting;
          waiting = failed = undefined;
          resolve({ value: event, done: false });
        } else if (queue.length < MAX_QUEUED) queue.push(event);
        else listener.fail(new AppError('unavailable', 'Too many events waiting for this subscriber: subscribe again'));
      },
      fail(err) {
        feed.leave(listener);
        done = true;
        error = err;
        failed?.(err);
        waiting = failed = undefined;
      },
    };
    if (!this.listener.listening) throw new AppError('unavailable', 'Live events are unavailable for the moment: subscribe again shortly');
    // Listening before the registration commits: what is notified from then on finds this subscriber.
    this.listeners.add(listener);
    try {
      await this.registered((em) => registerSubscriber(em, this.processId, [business], REGISTRATION_SECONDS));
    } catch {
      this.leave(listener);
      throw new AppError('unavailable', 'Live events are unavailable for the moment: subscribe again shortly');
    }
    const end = (): IteratorResult<PresentedEvent> => {
      this.leave(listener);
      done = true;
      queue.length = 0;
      waiting?.({ value: undefined, done: true });
      waiting = failed = undefined;
      return { value: undefined, done: true };
    };
    const iterator: AsyncIterableIterator<PresentedEvent> = {
      next() {
        if (queue.length) return Promise.resolve({ value: queue.shift()!, done: false });
        if (error) return Promise.reject(error);
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => ((waiting = resolve), (failed = reject)));
      },
      return: () => Promise.resolve(end()),
      throw: (err) => (end(), Promise.reject(err)),
      [Symbol.asyncIterator]() {
        return this;
      },
    };
    return iterator;
  }

  private businesses() {
    return [...new Set([...this.listeners].map((l) => l.business))];
  }

  /** A subscriber gone: the last of its business takes the registration with it. */
  private leave(listener: Listener) {
    if (!this.listeners.delete(listener)) return;
    if (!this.businesses().includes(listener.business)) void this.unregister(listener.business).catch(() => {});
  }

  /** Removes this process's row of `business` (all its rows: null) unless a subscriber of it came meanwhile. */
  private unregister(business: string | null) {
    return this.registered(async (em) => {
      if (business === null || !this.businesses().includes(business)) await unregisterSubscriber(em, this.processId, business);
    });
  }

  /** Runs a registry write after those before it; a failure is logged and passed on (the rows expire anyway). */
  private registered<T>(write: (em: EntityManager) => Promise<T>): Promise<T> {
    // Each write on its own (no transaction): a fork's Kysely runs on the pool.
    const run = this.registry.then(() => write(this.orm.em.fork()));
    this.registry = run.catch((err) => this.logger.warn({ err }, 'live events: the subscriber registry could not be written'));
    return run;
  }

  /** A payload lists events committed, a line "<business> <id> <type>" each: those some subscriber here wants are read at once. */
  private notified(payload: string) {
    const byBusiness = new Map<string, Listener[]>();
    for (const l of this.listeners) byBusiness.set(l.business, [...(byBusiness.get(l.business) ?? []), l]);
    const wanted: Array<{ id: string; business: string; listeners: Listener[] }> = [];
    for (const line of payload.split('\n')) {
      const [business, id, type] = line.split(' ');
      const listeners = byBusiness.get(business)?.filter((l) => l.wants(type));
      if (id && listeners?.length) wanted.push({ id, business, listeners });
    }
    if (!wanted.length) return;
    const read = this.orm.em.fork().find(Event, { id: { $in: wanted.map((w) => w.id) } });
    this.chain = this.chain.then(async () => {
      const events = new Map((await read.catch(() => [] as Event[])).map((e) => [e.id, e]));
      for (const w of wanted) {
        const event = events.get(w.id);
        if (event?.business !== w.business) continue;
        const presented = presentEvent(event);
        for (const l of w.listeners) if (this.listeners.has(l)) l.push(presented);
      }
    });
  }

  /** Events may have been missed: every subscription ends with an error, and its client subscribes again. */
  private lost() {
    for (const l of [...this.listeners]) l.fail(new AppError('unavailable', 'Live events were interrupted: subscribe again'));
  }
}
