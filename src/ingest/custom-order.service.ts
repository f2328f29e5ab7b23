import type { Pool, PoolClient } from 'pg';
import type { MikroORM, PostgreSqlConnection } from '@mikro-orm/postgresql';
import { AppError } from '../shared/errors.js';
import { newId } from '../shared/id.js';
import { hashSecret, secretMatches } from '../shared/secrets.js';
import type { Order } from '../modules/order/order.entity.js';
import type { OrderItem } from '../modules/order/order-item.entity.js';
import { presentOrder, presentOrderItem } from '../modules/order/order.service.js';
import type { OrderItemType, OrderType } from '../modules/order/order.type.js';
import type { IngestLine, IngestOrder } from './custom-order.validation.js';
import { AUTH_SQL, INGEST_SQL, INSERT_EVENT_SQL, LINK_RACED_LINES_SQL, LOAD_ORDER_SQL } from './custom-order.sql.js';

/** The Order as every door shows it (the shared presenters), timestamps as milliseconds, with its lines. */
export type IngestedOrderJson = Omit<OrderType, 'createdAt' | 'updatedAt'> & {
  createdAt: number;
  updatedAt: number;
  items: IngestedItemJson[];
};
export type IngestedItemJson = Omit<OrderItemType, 'menuItemId'> & { order: string; menuItem: string | null; createdAt: number; updatedAt: number };

export interface IngestResult {
  order: IngestedOrderJson;
  /** True when this request created the order; false for a repeat. */
  created: boolean;
  /** True when this request moved the order from PENDING to ACCEPTED (or created it). */
  changed: boolean;
}

const UNAUTHORIZED_MESSAGE = 'A valid webhook secret is required: Authorization: Bearer <WEBHOOK_SECRET>';
// Compared against when the business has no integration, so every refusal costs the same.
const DUMMY_HASH = hashSecret('no integration');
// Deadlock, serialization failure, FK or unique violations caused by a concurrent writer: run the transaction again.
const RETRYABLE = new Set(['40P01', '40001', '23503', '23505']);
const MAX_ATTEMPTS = 4;

const unauthorized = () => new AppError('unauthorized', UNAUTHORIZED_MESSAGE, undefined, { 'WWW-Authenticate': 'Bearer' });

/** The bearer secret of an Authorization header, or undefined. */
export function bearerSecret(header: string | undefined): string | undefined {
  const match = header ? /^Bearer[ ]+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
}

const toMs = (d: Date) => d.getTime();

function orderJson(order: OrderType, items: IngestedItemJson[]): IngestedOrderJson {
  return { ...order, createdAt: toMs(order.createdAt), updatedAt: toMs(order.updatedAt), items };
}

function itemJson(item: OrderItemType, order: string, createdAt: number, updatedAt: number): IngestedItemJson {
  const { menuItemId, ...rest } = item;
  return { ...rest, order, menuItem: menuItemId ?? null, createdAt, updatedAt };
}

/**
 * The custom order webhook's service: authentication and the write. Uses the ORM's own `pg` pool directly, with
 * named prepared statements: the hot path is parsed and planned once per connection, not per request.
 */
export class CustomOrderIngestion {
  private constructor(private readonly pool: Pool) {}

  static async create(orm: MikroORM): Promise<CustomOrderIngestion> {
    const connection = orm.em.getConnection() as PostgreSqlConnection;
    return new CustomOrderIngestion(await connection.getNativeClient());
  }

  /**
   * The business's country when `secret` is the current secret of its connected Custom integration; otherwise 401,
   * the same answer whether the business is unknown, has no integration or the secret is wrong. One indexed SELECT
   * per request (no cache): a rotated or disconnected secret stops working at once, in every process.
   */
  async authenticate(business: string, secret: string | undefined): Promise<{ country: string | null }> {
    const rows = (await this.pool.query({ name: 'custom_webhook_auth', text: AUTH_SQL, values: [business] })).rows as {
      secret_hash: string;
      country: string | null;
    }[];
    const row = rows[0];
    const ok = secretMatches(secret ?? '', row?.secret_hash ?? DUMMY_HASH);
    if (!ok || !row || !secret) throw unauthorized();
    return { country: row.country };
  }

  /** Creates the order or applies a repeat, in one transaction; retried when a concurrent writer got in the way. */
  async ingest(business: string, input: IngestOrder): Promise<IngestResult> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      let broken = false;
      try {
        await client.query('begin');
        const result = await this.write(client, business, input);
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

  private async write(client: PoolClient, business: string, input: IngestOrder): Promise<IngestResult> {
    const now = new Date();
    const nowIso = now.toISOString();
    const orderId = newId('order');
    const lines = input.lines.map((line) => ({ ...line, id: newId('orderItem') }));
    // One menu entry per name (case-insensitive, trimmed): the last itemId sent for that name is its reference.
    const menu = new Map<string, { id: string; name: string; item_id: string | null }>();
    for (const line of lines) {
      if (!line.name) continue;
      const key = line.name.toLowerCase();
      const previous = menu.get(key);
      menu.set(key, { id: previous?.id ?? newId('menuItem'), name: previous?.name ?? line.name, item_id: line.itemId ?? previous?.item_id ?? null });
    }

    // What the order will be if this request creates it: the same presenter GraphQL uses, for the event and the answer.
    const order = presentOrder({
      id: orderId,
      business,
      externalOrderId: input.externalOrderId,
      externalLocationId: input.externalLocationId,
      externalBrandId: input.externalBrandId,
      source: 'custom',
      channel: input.channel,
      status: input.status,
      currency: input.currency,
      subtotal: input.subtotal,
      deliveryCharge: input.deliveryCharge,
      total: input.total,
      customerName: input.customerName,
      customerEmail: input.customerEmail,
      customerPhone: input.customerPhone,
      metadata: input.metadata,
      createdAt: now,
      updatedAt: now,
    } as Order);
    const eventData = JSON.stringify({ object: { ...order, createdAt: now.getTime(), updatedAt: now.getTime() } });

    const { rows } = await client.query({
      name: 'custom_webhook_ingest',
      text: INGEST_SQL,
      values: [
        business,
        orderId,
        input.externalOrderId,
        input.externalLocationId,
        input.externalBrandId,
        input.channel,
        input.status,
        input.currency,
        input.subtotal,
        input.deliveryCharge,
        input.total,
        input.customerName,
        input.customerEmail,
        input.customerPhone,
        JSON.stringify(input.metadata),
        nowIso,
        JSON.stringify(lines.map(lineRow)),
        JSON.stringify([...menu.values()]),
        newId('event'),
        eventData,
      ],
    });
    const row = rows[0] as { id: string; inserted: boolean; items: { id: string; menuItem: string | null; named: boolean }[] } | undefined;

    if (row?.inserted) {
      const menuIds = new Map(row.items.map((i) => [i.id, i.menuItem]));
      if (row.items.some((i) => i.named && !i.menuItem)) {
        const linked = await client.query({ name: 'custom_webhook_link_raced', text: LINK_RACED_LINES_SQL, values: [orderId, business] });
        for (const r of linked.rows as { id: string; menu_item_id: string }[]) menuIds.set(r.id, r.menu_item_id);
      }
      const items = lines.map((line) =>
        itemJson(presentOrderItem(itemEntity(line, business, orderId, menuIds.get(line.id) ?? null)), orderId, now.getTime(), now.getTime()),
      );
      return { order: orderJson(order, items), created: true, changed: true };
    }

    // A repeat: read the order as it now stands (a new snapshot: it sees an order a concurrent request just committed).
    const loaded = await client.query({
      name: 'custom_webhook_load',
      text: LOAD_ORDER_SQL,
      values: [business, input.externalLocationId ?? '', input.externalOrderId],
    });
    const existing = loaded.rows[0] as LoadedOrder | undefined;
    if (!existing) throw new Error('custom webhook: the conflicting order is not visible'); // cannot happen under READ COMMITTED
    const current = presentOrder(orderEntity(existing));
    const items = existing.items.map((i) =>
      itemJson(presentOrderItem(itemEntity(i, business, existing.id, i.menuItem)), existing.id, i.createdAt, i.updatedAt),
    );
    const changed = !!row; // the upsert returned the row: it moved PENDING -> ACCEPTED
    if (changed) {
      const data = JSON.stringify({ object: { ...current, createdAt: existing.created_at, updatedAt: existing.updated_at } });
      await client.query({ name: 'custom_webhook_event', text: INSERT_EVENT_SQL, values: [newId('event'), business, 'order.updated', data, nowIso] });
    }
    return { order: orderJson(current, items), created: false, changed };
  }
}

function lineRow(line: IngestLine & { id: string }) {
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

interface LoadedItem extends Omit<IngestLine, 'position'> {
  id: string;
  position: number;
  menuItem: string | null;
  createdAt: number;
  updatedAt: number;
}

interface LoadedOrder {
  id: string;
  business_id: string;
  external_order_id: string;
  external_location_id: string | null;
  external_brand_id: string | null;
  source: Order['source'];
  channel: Order['channel'];
  status: Order['status'];
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
  items: LoadedItem[];
}

function orderEntity(row: LoadedOrder): Order {
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
  } as Order;
}

function itemEntity(line: Omit<IngestLine, 'position'> & { id: string; position: number }, business: string, order: string, menuItem: string | null): OrderItem {
  return {
    id: line.id,
    business,
    order,
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
  } as OrderItem;
}
