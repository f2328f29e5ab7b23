import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/id.js';
import { rowOf } from '../../kit/db/entity.table.js';
import { inTransaction } from '../../kit/db/db.js';
import type { OrderSource } from './order.entity.js';
import type { OrderFields } from './order.rules.js';
import {
  orderJson,
  presentOrder,
  presentOrderItem,
  presentOrderWithItems,
  type OrderItemRecord,
  type OrderOwner,
  type OrderRecord,
  type OrderWithItems,
  type PresentedOrder,
} from './order.presenter.js';
import { eventRecorded } from '../event/index.js';
import {
  findOrderByKey,
  insertEvent,
  linkRacedLines,
  writeOrder,
  writeOrders,
  type BatchedOrder,
  type EventRow,
  type MenuRow,
  type WrittenLine,
} from './order.repo.js';
import { WriteBatcher } from '../../kit/db/write.batcher.js';

/**
 * - create: an API client adds an order (`source: api`); a duplicate external id is a 409 and changes nothing.
 * - ingest: an integration delivers an order (`source: custom`), idempotently: a repeat returns the stored order and
 *   only ever moves it PENDING -> ACCEPTED (interface 4.9).
 */
export type WriteMode = 'create' | 'ingest';
const SOURCE: Record<WriteMode, OrderSource> = { create: 'api', ingest: 'custom' };

export interface WriteResult {
  order: OrderWithItems;
  /** True when this request created the order; false for a repeat. */
  created: boolean;
  /** True when this request moved the order from PENDING to ACCEPTED (or created it). */
  changed: boolean;
}

/** What an order's write fires: its creation, and its acceptance (at creation or later). */
export type OrderTrigger = 'order.created' | 'order.accepted';

/**
 * What follows an order's write in its own transaction (the feedback flows): the order module calls it and knows no
 * more of it. The flow module depends on orders, not the other way round; the composition root gives the step.
 */
type OrderWrittenStep = (tx: EntityManager, business: string, order: OrderRecord, triggers: OrderTrigger[], now: Date) => Promise<unknown>;

/** Whether the step may write anything for this order; read before it is written, outside any transaction. */
type OrderFollowCheck = (em: EntityManager, business: string, order: OrderRecord, triggers: OrderTrigger[], now: Date) => Promise<boolean>;

/** What follows each order's write, given to the writer by the composition root (src/compose.ts). */
export interface OrderFollowers {
  /** Runs in the order's transaction for every write that fires triggers (each door, the API's update). */
  step: OrderWrittenStep;
  /** Read beforehand: a new order that nothing follows is written in one statement alone. */
  check: OrderFollowCheck;
}

declare module '../../kit/graphql/context.js' {
  interface Services {
    /** The one writer of orders, with what follows each write. */
    orders: OrderWriter;
  }
}

// Deadlock, serialization failure, FK or unique violations caused by a concurrent writer: run the transaction again.
const RETRYABLE = new Set(['40P01', '40001', '23503', '23505']);
const MAX_ATTEMPTS = 4;

const conflict = (fields: OrderFields) =>
  new AppError('conflict', `An order with externalOrderId '${fields.externalOrderId}' already exists at this externalLocationId`, [
    { field: 'externalOrderId', message: 'already exists' },
  ]);

/**
 * The one writer of new orders, and so of the menu sync: the order, its lines, the menu items their names call for and
 * the event in one statement (writeOrder, order.repo.ts), then what follows (its followers' step), in one em transaction; or
 * that statement alone, when nothing follows (write). Menu items are inserted with ON CONFLICT DO NOTHING; a line whose new dish a concurrent order inserted first is
 * linked by a second statement.
 */
export class OrderWriter {
  /** One batcher per database (per ORM driver): a process may hold several, as the tests do. */
  private readonly batchers = new WeakMap<object, WriteBatcher<OrderDraft, BatchOutcome>>();

  /** One per process, made by the composition root with what follows an order (the feedback flows, recovery). */
  constructor(private readonly followers: OrderFollowers) {}

  /** What follows an order the API moved to ACCEPTED, in the update's transaction `tx` (order.service's updateOrder). */
  accepted(tx: EntityManager, business: string, order: OrderRecord, now = new Date()) {
    return this.followers.step(tx, business, order, ['order.accepted'], now);
  }

  /**
   * A new order that nothing follows (no feedback flow, no waiting guest: the followers' check) is one statement
   * committed alone: the order, its lines, its menu entries and its event are all in it, and no transaction is opened
   * and closed around it (two round trips of three). Otherwise, and for a repeat, one transaction (the kit's
   * inTransaction: the writer only runs statements). Retried when a concurrent writer got in the way. `owner`: what
   * the answer and the events show of the business (presentOrder), as the door read it with the business's country.
   */
  async write(em: EntityManager, business: string, owner: OrderOwner, fields: OrderFields, mode: WriteMode): Promise<WriteResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        const draft = draftOf(business, owner, fields, mode);
        const triggers = triggersOf(draft.record);
        if (!(await this.followers.check(em, business, draft.record, triggers, draft.now))) {
          // Never accepts a stored order here: a repeat changes nothing and goes on to the transaction below.
          const alone = await this.writeAlone(em, draft, mode);
          if (alone) return alone;
        }
        return await inTransaction(em, (tx) => this.writeIn(tx, draft, mode));
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (attempt >= MAX_ATTEMPTS || !code || !RETRYABLE.has(code)) throw err;
      }
    }
  }

  /**
   * A new order nothing follows, committed without a transaction of its own: with the other new orders of its business
   * that arrive while that business's statements are busy, in one statement (writeOrders: group commit), or alone
   * when the batch failed (so that one order's fault is its own). Undefined for a repeat of a stored order.
   */
  private async writeAlone(em: EntityManager, draft: OrderDraft, mode: WriteMode): Promise<WriteResult | undefined> {
    const alone = async () => (await this.writeNew(em, draft, mode, false)).created;
    if (em.getTransactionContext()) return alone();
    let written: BatchOutcome;
    try {
      written = await this.batcherFor(em).add(draft.business, draft);
    } catch {
      return alone();
    }
    if (written) return this.created(em, draft, written.items, written.fanoutPending, false);
    if (mode === 'create') throw conflict(draft.fields);
    return undefined;
  }

  /**
   * The order as new, on `em` (in its transaction, or alone): `created` when it was, else `accepted` when the stored
   * order it repeats moved PENDING -> ACCEPTED (only with `follow`). With `follow`, what follows a new order runs too,
   * in the same transaction.
   */
  private async writeNew(em: EntityManager, draft: OrderDraft, mode: WriteMode, follow: boolean): Promise<{ created?: WriteResult; accepted: boolean }> {
    const written = await writeOrder(em, { ...writeOf(draft), mayAccept: follow && mode === 'ingest' });
    if (written?.inserted) return { created: await this.created(em, draft, written.items, written.fanout_pending, follow), accepted: false };
    if (mode === 'create') throw conflict(draft.fields);
    // The upsert returned the row of a repeat: it moved PENDING -> ACCEPTED.
    return { accepted: !!written };
  }

  /** What follows a new order's rows: the wake-up for its event, its lines' menu items, and (with `follow`) the step. */
  private async created(em: EntityManager, draft: OrderDraft, lines: WrittenLine[], fanoutPending: boolean | null, follow: boolean): Promise<WriteResult> {
    const { business, record, order, items, event, now } = draft;
    eventRecorded(em, { id: event.id, business, type: event.type, fanoutPending });
    const linked = new Map(lines.map((i) => [i.id, i]));
    // A dish a concurrent order added first: its lines are linked by a second statement (alone, just after).
    if (lines.some((i) => i.named && !i.menu_item_id)) {
      for (const r of await linkRacedLines(em, record.id, business)) linked.get(r.id)!.menu_item_id = r.menu_item_id;
    }
    for (const item of items) item.menuItem = linked.get(item.id)?.menu_item_id ?? null;
    if (follow) await this.followers.step(em, business, record, triggersOf(record), now);
    return { order: { ...order, items: items.map(presentOrderItem), submissions: [] }, created: true, changed: true };
  }

  private async writeIn(tx: EntityManager, draft: OrderDraft, mode: WriteMode): Promise<WriteResult> {
    const { created, accepted } = await this.writeNew(tx, draft, mode, true);
    if (created) return created;
    const { business, owner, fields, now } = draft;

    // A repeat: read the order as it now stands (a new snapshot: it sees an order a concurrent request just committed).
    const existing = await findOrderByKey(tx, { business, externalLocationId: fields.externalLocationId, externalOrderId: fields.externalOrderId });
    if (!existing) throw new Error('order writer: the conflicting order is not visible'); // cannot happen under READ COMMITTED
    const current = presentOrderWithItems(existing.order, owner, existing.items, existing.submissions);
    const changed = accepted;
    if (changed) {
      const { items: _items, submissions: _submissions, ...updated } = current;
      const id = newId('event');
      const fanoutPending = await insertEvent(tx, { id, business_id: business, type: 'order.updated', data: { object: orderJson(updated) }, created_at: now });
      eventRecorded(tx, { id, business, type: 'order.updated', fanoutPending });
      await this.accepted(tx, business, existing.order, now);
    }
    return { order: current, created: false, changed };
  }

  private batcherFor(em: EntityManager): WriteBatcher<OrderDraft, BatchOutcome> {
    const driver = em.getDriver();
    let batcher = this.batchers.get(driver);
    if (!batcher) {
      // Its own EntityManager: the batches outlive the request whose writer made the batcher.
      const own = em.fork();
      batcher = new WriteBatcher<OrderDraft, BatchOutcome>(async (business, drafts) => {
        const written = await writeOrders(own, business, drafts.map(writeOf));
        const created = new Set(written.orders);
        const fanout = new Map(written.events.map((e) => [e.id, e.fanout_pending]));
        const lines = new Map<string, WrittenLine[]>();
        for (const line of written.items) lines.set(line.order_id, [...(lines.get(line.order_id) ?? []), line]);
        return drafts.map((d) => (created.has(d.record.id) ? { items: lines.get(d.record.id) ?? [], fanoutPending: fanout.get(d.event.id) ?? null } : null));
      }, BATCH_LIMITS);
      this.batchers.set(driver, batcher);
    }
    return batcher;
  }
}

/** What a request writes if its order is new, made once before the write: ids, rows, the event and the answer. */
interface OrderDraft {
  business: string;
  owner: OrderOwner;
  fields: OrderFields;
  now: Date;
  record: OrderRecord;
  /** Presented once, for the event and the answer. */
  order: PresentedOrder;
  items: OrderItemRecord[];
  menu: MenuRow[];
  references: Map<string, string>;
  event: EventRow & { id: string; type: string };
}

function draftOf(business: string, owner: OrderOwner, fields: OrderFields, mode: WriteMode): OrderDraft {
  const now = new Date();
  const { lines, ...orderFields } = fields;
  const record: OrderRecord = { ...orderFields, id: newId('order'), business, source: SOURCE[mode], createdAt: now, updatedAt: now };
  const order = presentOrder(record, owner);
  const items: OrderItemRecord[] = lines.map(({ itemId, ...line }) => ({ ...line, id: newId('orderItem'), business, externalItemId: itemId, menuItem: null }));
  const { menu, references } = menuOf(items, business, now);
  const event = { id: newId('event'), business_id: business, type: 'order.created', data: { object: orderJson(order) }, created_at: now };
  return { business, owner, fields, now, record, order, items, menu, references, event };
}

/** The rows a draft writes, as the order statements take them. */
function writeOf(draft: OrderDraft): BatchedOrder {
  const { record, items, menu, references, event, now } = draft;
  const keyOfReference = new Map([...references].map(([key, ref]) => [ref, key]));
  return {
    order: rowOf(record, ['business']),
    lines: items.map(({ menuItem: _menuItem, ...item }) => ({
      ...rowOf({ ...item, order: record.id, createdAt: now, updatedAt: now }, ['business', 'order']),
      // An itemId-only line takes the entry a named line of this same order gives that reference, if any.
      menuKey: item.name ? item.name.toLowerCase() : (item.externalItemId && keyOfReference.get(item.externalItemId)) || null,
    })),
    menu,
    references,
    event,
  };
}

/** A batched order's outcome: its lines and its event's fanout_pending when it was created; null for a repeat. */
type BatchOutcome = { items: WrittenLine[]; fanoutPending: boolean | null } | null;

/**
 * One statement of batched orders in flight per business, of at most 32 orders: the orders a busy business sends
 * meanwhile make the next one. (Two in flight made smaller batches and cost more per order: bench/ingest.)
 */
const BATCH_LIMITS = { runsPerKey: 1, maxBatch: 32 };
/** What a new order fires: its creation, and its acceptance when it arrives accepted. */
const triggersOf = (record: OrderRecord): OrderTrigger[] => (record.status === 'ACCEPTED' ? ['order.created', 'order.accepted'] : ['order.created']);

/**
 * One menu entry per name (case-insensitive): the last itemId sent for that name is its reference, in key order (the
 * statement inserts them in this order, so two orders with the same new names cannot deadlock).
 */
function menuOf(items: OrderItemRecord[], business: string, now: Date) {
  const menu = new Map<string, MenuRow>();
  for (const item of items) {
    if (!item.name) continue;
    const key = item.name.toLowerCase();
    const previous = menu.get(key);
    menu.set(key, {
      id: previous?.id ?? newId('menuItem'),
      business_id: business,
      name: previous?.name ?? item.name,
      external_item_id: item.externalItemId ?? previous?.external_item_id ?? null,
      created_at: now,
      updated_at: now,
    });
  }
  const sorted = [...menu.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const references = new Map(sorted.filter(([, m]) => m.external_item_id != null).map(([key, m]) => [key, m.external_item_id!]));
  return { menu: sorted.map(([, m]) => m), references };
}
