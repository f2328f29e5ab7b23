import type { Pool, PoolClient } from 'pg';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import { newId } from '../../shared/id.js';
import type { OrderChannel, OrderSource, OrderStatus } from './order.entity.js';
import type { OrderFields, OrderLine } from './order.rules.js';
import { orderJson, presentOrder, presentOrderItem, presentOrderWithItems, type OrderItemRecord, type OrderRecord, type OrderWithItems } from './order.presenter.js';
import { createFeedbackRequests } from '../flow/feedback-request.create.js';
import { flowOrderOf } from '../flow/feedback-flow.rules.js';
import { INGEST_SQL, INSERT_EVENT_SQL, LINK_RACED_LINES_SQL, LOAD_ORDER_SQL } from './order.sql.js';
import { ormPool } from '../../kit/orm.pool.js';

/**
 * - create: an API client adds an order (`source: api`); a duplicate external id is a 409 and changes nothing.
 * - ingest: an integration delivers an order (`source: custom`), idempotently: a repeat returns the stored order and
 *   only ever moves it PENDING -> ACCEPTED (spec 4.9).
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

// Deadlock, serialization failure, FK or unique violations caused by a concurrent writer: run the transaction again.
const RETRYABLE = new Set(['40P01', '40001', '23503', '23505']);
const MAX_ATTEMPTS = 4;

const conflict = (fields: OrderFields) =>
  new AppError('conflict', `An order with externalOrderId '${fields.externalOrderId}' already exists at this externalLocationId`, [
    { field: 'externalOrderId', message: 'already exists' },
  ]);

/**
 * The one writer of new orders, and so of the menu sync: the order, its lines, the menu items their names call for
 * and the event, in one prepared statement (INGEST_SQL) on the ORM's own `pg` pool, parsed and planned once per
 * connection. Menu items are inserted with ON CONFLICT DO NOTHING (a popular dish is not row-locked by every order
 * naming it); a line whose new dish a concurrent order inserted first is linked by a second statement.
 */
export class OrderWriter {
  private constructor(private readonly pool: Pool) {}

  static async of(em: EntityManager): Promise<OrderWriter> {
    return new OrderWriter(await ormPool(em));
  }

  /** One transaction; retried when a concurrent writer got in the way. */
  async write(business: string, fields: OrderFields, mode: WriteMode): Promise<WriteResult> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      let broken = false;
      try {
        await client.query('begin');
        const result = await this.writeIn(client, business, fields, mode);
        await client.query('commit');
        return result;
      } catch (err) {
        await client.query('rollback').catch(() => {
          broken = true;
        });
        const code = (err as { code?: string }).code;
        if (attempt >= MAX_ATTEMPTS || !code || !RETRYABLE.has(code)) throw err;
      } finally {
        client.release(broken);
      }
    }
  }

  private async writeIn(client: PoolClient, business: string, fields: OrderFields, mode: WriteMode): Promise<WriteResult> {
    const now = new Date();
    const nowIso = now.toISOString();
    const lines = fields.lines.map((line) => ({ ...line, id: newId('orderItem') }));
    // One menu entry per name (case-insensitive, trimmed): the last itemId sent for that name is its reference.
    const menu = new Map<string, { id: string; name: string; item_id: string | null }>();
    for (const line of lines) {
      if (!line.name) continue;
      const key = line.name.toLowerCase();
      const previous = menu.get(key);
      menu.set(key, { id: previous?.id ?? newId('menuItem'), name: previous?.name ?? line.name, item_id: line.itemId ?? previous?.item_id ?? null });
    }

    // The order this request creates, if it does: presented once, for the event and the answer.
    const record: OrderRecord = { ...fields, id: newId('order'), business, source: SOURCE[mode], createdAt: now, updatedAt: now };
    const order = presentOrder(record);

    const { rows } = await client.query({
      name: 'order_write',
      text: INGEST_SQL,
      values: [
        business,
        record.id,
        fields.externalOrderId,
        fields.externalLocationId,
        fields.externalBrandId,
        fields.channel,
        fields.status,
        fields.currency,
        fields.subtotal,
        fields.deliveryCharge,
        fields.total,
        fields.customerName,
        fields.customerEmail,
        fields.customerPhone,
        JSON.stringify(fields.metadata),
        nowIso,
        JSON.stringify(lines.map(lineRow)),
        JSON.stringify([...menu.values()]),
        newId('event'),
        JSON.stringify({ object: orderJson(order) }),
        mode === 'ingest',
        record.source,
      ],
    });
    const row = rows[0] as { id: string; inserted: boolean; items: { id: string; menuItem: string | null; named: boolean }[] } | undefined;

    if (row?.inserted) {
      const menuIds = new Map(row.items.map((i) => [i.id, i.menuItem]));
      if (row.items.some((i) => i.named && !i.menuItem)) {
        const linked = await client.query({ name: 'order_link_raced', text: LINK_RACED_LINES_SQL, values: [record.id, business] });
        for (const r of linked.rows as { id: string; menu_item_id: string }[]) menuIds.set(r.id, r.menu_item_id);
      }
      const items = lines.map((line) => itemRecord(line, business, menuIds.get(line.id) ?? null));
      await createFeedbackRequests(client, business, flowOrderOf(record), record.status === 'ACCEPTED' ? ['order.created', 'order.accepted'] : ['order.created'], now);
      return { order: { ...order, items: items.map(presentOrderItem), submissions: [] }, created: true, changed: true };
    }
    if (mode === 'create') throw conflict(fields);

    // A repeat: read the order as it now stands (a new snapshot: it sees an order a concurrent request just committed).
    const loaded = await client.query({
      name: 'order_load',
      text: LOAD_ORDER_SQL,
      values: [business, fields.externalLocationId ?? '', fields.externalOrderId],
    });
    const existing = loaded.rows[0] as LoadedOrder | undefined;
    if (!existing) throw new Error('order writer: the conflicting order is not visible'); // cannot happen under READ COMMITTED
    const current = presentOrderWithItems(
      orderRecord(existing),
      existing.items.map((i) => itemRecord(i, business, i.menuItem)),
      existing.submissions,
    );
    const changed = !!row; // the upsert returned the row: it moved PENDING -> ACCEPTED
    if (changed) {
      const { items: _items, submissions: _submissions, ...updated } = current;
      await client.query({
        name: 'order_event',
        text: INSERT_EVENT_SQL,
        values: [newId('event'), business, 'order.updated', JSON.stringify({ object: orderJson(updated) }), nowIso],
      });
      await createFeedbackRequests(client, business, flowOrderOf(orderRecord(existing)), ['order.accepted'], now);
    }
    return { order: current, created: false, changed };
  }
}

function lineRow(line: OrderLine & { id: string }) {
  return {
    id: line.id,
    position: line.position,
    item_id: line.itemId,
    name: line.name,
    quantity: line.quantity,
    unit_price: line.unitPrice,
    total_price: line.totalPrice,
    sales_tax_percent: line.salesTaxPercent,
    sales_tax_amount: line.salesTaxAmount,
    item_comment: line.itemComment,
  };
}

function itemRecord(line: Omit<OrderLine, 'position'> & { id: string; position: number }, business: string, menuItem: string | null): OrderItemRecord {
  return {
    id: line.id,
    business,
    position: line.position,
    menuItem,
    externalItemId: line.itemId,
    name: line.name,
    quantity: line.quantity,
    unitPrice: line.unitPrice,
    totalPrice: line.totalPrice,
    salesTaxPercent: line.salesTaxPercent,
    salesTaxAmount: line.salesTaxAmount,
    itemComment: line.itemComment,
  };
}

interface LoadedOrder {
  id: string;
  business_id: string;
  external_order_id: string;
  external_location_id: string | null;
  external_brand_id: string | null;
  source: OrderSource;
  channel: OrderChannel | null;
  status: OrderStatus;
  currency: string;
  subtotal: number | null;
  delivery_charge: number | null;
  total: number;
  customer_name: string | null;
  customer_email: string | null;
  customer_phone: string | null;
  metadata: Record<string, string>;
  created_at: number;
  updated_at: number;
  items: (Omit<OrderLine, 'position'> & { id: string; position: number; menuItem: string | null })[];
  submissions: string[];
}

function orderRecord(row: LoadedOrder): OrderRecord {
  return {
    id: row.id,
    business: row.business_id,
    externalOrderId: row.external_order_id,
    externalLocationId: row.external_location_id,
    externalBrandId: row.external_brand_id,
    source: row.source,
    channel: row.channel,
    status: row.status,
    currency: row.currency,
    subtotal: row.subtotal,
    deliveryCharge: row.delivery_charge,
    total: row.total,
    customerName: row.customer_name,
    customerEmail: row.customer_email,
    customerPhone: row.customer_phone,
    metadata: row.metadata,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
