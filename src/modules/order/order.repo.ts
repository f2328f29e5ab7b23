import type { EntityManager } from '@mikro-orm/postgresql';
import { sql, type Insertable, type Kysely } from 'kysely';
import { jsonArrayFrom } from 'kysely/helpers/postgres';
import { db, runPrepared, runShaped } from '../../kit/db/db.js';
import type { TableOf } from '../../kit/db/entity.table.js';
import { EVENT_COLUMNS, insertEvents, type Event } from '../event/index.js';
import type { MenuItem } from '../menu/index.js';
import type { OrderItem } from './order-item.entity.js';
import type { Order } from './order.entity.js';
import type { OrderItemRecord, OrderRecord } from './order.presenter.js';

/**
 * The order module's statements, on the EntityManager's own Kysely (`em`'s transaction when it has one). The tables'
 * columns are the entities' (TableOf): a row to insert is typed by them. The ingest path's statements have one text
 * each, built once and kept parsed and planned by PostgreSQL (runShaped, prepared).
 */
interface OrderDB {
  customer_order: TableOf<Order, 'business'>;
  order_item: TableOf<OrderItem, 'business' | 'order' | 'menuItem'>;
  menu_item: TableOf<MenuItem, 'business'>;
  event: TableOf<Event, 'business'>;
  // Read for the ids of an order's submissions only; the submission module depends on orders, not the reverse.
  submission: { id: string; business_id: string; order_id: string | null; created_at: Date };
}

/**
 * The rows of a write, typed by the tables they go to. Each one fills every column of its type (the writer builds
 * them whole), listed once below; the event's fanout_pending is the trigger's (event.signal.ts).
 */
type OrderRow = Insertable<OrderDB['customer_order']>;
/** A line as written: its menu item is found by the statement (menuKey: the lower-cased name it goes by, if any). */
type LineRow = Omit<Insertable<OrderDB['order_item']>, 'menu_item_id'> & { menuKey: string | null };
export type MenuRow = Insertable<OrderDB['menu_item']>;
export type EventRow = Omit<Insertable<OrderDB['event']>, 'fanout_pending'>;

/**
 * `columns`, which must name every key of R: the statements' text is fixed (built once, prepared), so their columns
 * cannot be read off each write's rows; a column added to a row's type is a type error until it is listed.
 */
const allOf =
  <R>() =>
  <const C extends readonly (keyof R & string)[]>(
    columns: C & ([Exclude<keyof R, C[number]>] extends [never] ? unknown : { missing: Exclude<keyof R, C[number]> }),
  ) =>
    columns;

const ORDER_COLUMNS = allOf<OrderRow>()([
  'id',
  'business_id',
  'external_order_id',
  'external_location_id',
  'external_brand_id',
  'source',
  'channel',
  'status',
  'currency',
  'subtotal',
  'delivery_charge',
  'total',
  'customer_name',
  'customer_email',
  'customer_phone',
  'metadata',
  'created_at',
  'updated_at',
]);
// order_id is the upserted order's (o.id), menu_item_id what the statement finds.
const LINE_COLUMNS = allOf<Omit<LineRow, 'menuKey' | 'order_id'>>()([
  'id',
  'business_id',
  'position',
  'external_item_id',
  'name',
  'quantity',
  'unit_price',
  'total_price',
  'sales_tax_percent',
  'sales_tax_amount',
  'item_comment',
  'created_at',
  'updated_at',
]);
const MENU_COLUMNS = allOf<MenuRow>()(['id', 'business_id', 'name', 'external_item_id', 'created_at', 'updated_at']);

/** MikroORM's own Kysely (kit/db/db.ts): it runs in `em`'s transaction when there is one, and logs as the ORM does. */
const orderKysely = (em: EntityManager) => db<OrderDB>(em);

/** The idempotency key customer_order_external_unique: a missing location id counts as ''. */
const ORDER_KEY = sql`business_id, coalesce(external_location_id, ''), external_order_id`;

/** A line as written: its menu item, and whether it has a name (a named line without one raced a new dish). */
export interface WrittenLine {
  id: string;
  menu_item_id: string | null;
  named: boolean;
}

/** The rows of one write, typed by the tables they go to. */
export interface OrderWrite {
  order: OrderRow;
  /** Ingest mode: a repeat saying ACCEPTED moves a PENDING order to ACCEPTED; otherwise a repeat changes nothing. */
  mayAccept: boolean;
  lines: LineRow[];
  /** One entry per name, in key order (two orders with the same new names cannot deadlock). */
  menu: MenuRow[];
  /** Lower-cased name -> the itemId the order gives it, for the existing entries whose reference changed. */
  references: Map<string, string>;
  event: EventRow;
}

const names = (columns: readonly string[]) => sql.join(columns.map((c) => sql.ref(c)));
/** `alias`'s columns, with business_id the business given, not the JSON's: the write is pinned to one business (one Citus shard). */
const pinnedCols = (alias: string, columns: readonly string[], business: string) =>
  sql.join(columns.map((c) => (c === 'business_id' ? sql`${business}::text` : sql.ref(`${alias}.${c}`))));
/** The rows of a JSON array parameter, each as the table's own row type reads it, beside the element itself (e). */
const elementsOf = (table: string, alias: string, json: string) =>
  sql`jsonb_array_elements(${json}::jsonb) e cross join lateral jsonb_populate_record(null::${sql.table(table)}, e) ${sql.raw(alias)}`;
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * `select <the columns> from <the rows of a JSON parameter, as the table's own row type reads them> <alias>`, of one
 * business: its business_id is `business`.
 */
const rowsOf = (table: string, alias: string, columns: readonly string[], json: string, business: string, many = true) =>
  sql`select ${pinnedCols(alias, columns, business)}
    from ${sql.raw(many ? 'jsonb_populate_recordset' : 'jsonb_populate_record')}(null::${sql.table(table)}, ${json}::jsonb) ${sql.raw(alias)}`;
const created = sql<boolean>`exists (select 1 from o where o.inserted)`;
/**
 * A line's menu item (line `l`, its JSON element `e`): a named line takes its name's entry (inserted by this statement,
 * `ins_menu`, or found, `old_menu`), an itemId-only line the entry of its order holding that reference (menuKey), else
 * the oldest one of the business holding it.
 */
const lineMenuItem = (business: string) => sql`case
  when e->>'menuKey' is not null
  then coalesce((select id from ins_menu where key = e->>'menuKey'), (select id from old_menu where key = e->>'menuKey'))
  when l.external_item_id is not null
  then (select mi.id from menu_item mi where mi.business_id = ${business} and mi.external_item_id = l.external_item_id
        order by mi.created_at, mi.id limit 1) end`;

/**
 * The whole write of an order, whichever door it came by, in one statement:
 *  - o:        the order, upserted on its idempotency key (business, coalesce(location, ''), order id). A repeat only
 *              ever moves PENDING to ACCEPTED, when `mayAccept`; otherwise it returns no row.
 *  - ins_menu: the menu items missing for the lines' names, one multi-row INSERT ... ON CONFLICT DO NOTHING on
 *              (business, lower(name)) in key order. DO NOTHING, not DO UPDATE: a popular menu item is not row-locked
 *              by every order naming it.
 *  - old_menu: the entries that already existed (same snapshot, so never those ins_menu inserted); ref_menu updates the
 *              reference of those whose itemId changed (the only case that locks one).
 *  - items:    the lines; a named line takes its name's entry, an itemId-only line the entry of this order holding that
 *              reference (menuKey), else the oldest one of the business holding it.
 *  - ev:       order.created, answering the trigger's fanout_pending (whom to tell once it commits: event.signal.ts).
 * Everything but `o` only when the order was created. One text whatever the order: every CTE is always there, and
 * what varies (the rows as JSON, read by the tables' own row types, and the names and references as arrays) is
 * parameters, so it is built once and PostgreSQL keeps it parsed and planned (runShaped, prepared). Answers the
 * order's id, whether it was created, each line's menu item (a named line left without one is for linkRacedLines)
 * and the event's fanout_pending.
 */
export async function writeOrder(
  em: EntityManager,
  w: OrderWrite,
): Promise<{ id: string; inserted: boolean; items: WrittenLine[]; fanout_pending: boolean | null } | undefined> {
  const order = JSON.stringify(w.order);
  const menu = JSON.stringify(w.menu);
  const menuKeys = w.menu.map((m) => m.name.toLowerCase());
  const refKeys = [...w.references.keys()];
  const refs = [...w.references.values()];
  const lines = JSON.stringify(w.lines);
  const event = JSON.stringify(w.event);
  const business = w.order.business_id;
  // The built statement's parameters, in the order the text carries them (runShaped checks it on the first build).
  const parameters = [business, order, w.mayAccept, business, menu, business, menuKeys, refKeys, refs, business, business, business, lines, business, event];
  const build = () =>
    // The chain is built untyped: its rows' types are checked by OrderWrite and the column lists above.
    (orderKysely(em) as unknown as Kysely<any>)
      .with('o', (k) =>
        k
          .insertInto('customer_order')
          .columns(ORDER_COLUMNS)
          .expression(rowsOf('customer_order', 'r', ORDER_COLUMNS, order, business, false))
          .onConflict((oc) =>
            oc
              .expression(ORDER_KEY)
              .doUpdateSet({ status: sql.lit('ACCEPTED'), updated_at: sql`excluded.updated_at` })
              .where(sql<boolean>`customer_order.status = 'PENDING' and excluded.status = 'ACCEPTED' and ${w.mayAccept}::boolean`),
          )
          .returning(['id', sql<boolean>`customer_order.xmax = 0`.as('inserted'), 'created_at']),
      )
      .with('ins_menu', (k) =>
        k
          .insertInto('menu_item')
          .columns(MENU_COLUMNS)
          .expression(sql`${rowsOf('menu_item', 'm', MENU_COLUMNS, menu, business)} where ${created} order by lower(m.name)`)
          .onConflict((oc) => oc.expression(sql`business_id, lower(name)`).doNothing())
          .returning(['id', sql<string>`lower(name)`.as('key')]),
      )
      .with('old_menu', (k) =>
        k
          .selectFrom('menu_item')
          .select(['id', sql<string>`lower(name)`.as('key')])
          .where('business_id', '=', business)
          .where(sql<string>`lower(name)`, '=', sql<string>`any(${menuKeys}::text[])`),
      )
      .with('ref_menu', (k) =>
        k
          .updateTable('menu_item as mi')
          .from([sql`unnest(${refKeys}::text[], ${refs}::text[])`.as<'r'>(sql`r(key, ref)`), 'o'])
          .set({ external_item_id: sql.ref('r.ref'), updated_at: sql.ref('o.created_at') })
          .where(sql<boolean>`o.inserted and mi.business_id = ${business} and lower(mi.name) = r.key and mi.external_item_id is distinct from r.ref`)
          .returning('mi.id'),
      )
      .with('items', (k) =>
        k
          .insertInto('order_item')
          .columns([...LINE_COLUMNS, 'order_id', 'menu_item_id'])
          .expression(
            sql`select ${pinnedCols('l', LINE_COLUMNS, business)}, o.id, ${lineMenuItem(business)}
            from ${elementsOf('order_item', 'l', lines)}
            cross join o where o.inserted`,
          )
          .returning(['id', 'menu_item_id', sql<boolean>`name is not null`.as('named')]),
      )
      // Raw SQL as a CTE: Kysely does not put it in parentheses itself.
      .with('ev', () => sql`(${insertEvents(sql`${rowsOf('event', 'v', EVENT_COLUMNS, event, business, false)} where ${created}`)})`)
      .selectFrom('o')
      .select([
        'o.id',
        'o.inserted',
        sql`(select coalesce(json_agg(items), '[]') from items)`.as('items'),
        sql`(select fanout_pending from ev)`.as('fanout_pending'),
      ]);
  const [row] = await runShaped<{ id: string; inserted: boolean; items: WrittenLine[]; fanout_pending: boolean | null }>(em, 'order.write', parameters, build, {
    prepare: true,
  });
  return row;
}

/** One new order of a batch (writeOrders): its rows, as writeOrder takes them, with the order's id on its lines. */
export type BatchedOrder = Omit<OrderWrite, 'mayAccept'>;

/** What a batch wrote: the orders it created (a repeat of a stored order is not among them), their lines and events. */
export interface WrittenBatch {
  orders: string[];
  items: Array<WrittenLine & { order_id: string }>;
  events: Array<{ id: string; fanout_pending: boolean | null }>;
}

/**
 * Several new orders of one business in one statement, committed together (group commit: OrderWriter's batches).
 * The same parts as writeOrder, each for all the orders at once: the orders inserted in key order (two batches
 * holding the same orders cannot deadlock) with ON CONFLICT DO NOTHING, so a repeat of a stored order (or of an
 * order earlier in the batch) is left out, with its lines and event, for the writer to answer as a repeat; the menu
 * entries the created orders name, inserted once each; for a name given another itemId, the last created order's
 * reference; the lines and events of the created orders. One text whatever the batch (everything is an array
 * parameter): PostgreSQL keeps it parsed and planned.
 */
export async function writeOrders(em: EntityManager, business: string, batch: BatchedOrder[]): Promise<WrittenBatch> {
  const byKey = (o: OrderRow) => `${o.external_location_id ?? ''}\u0000${o.external_order_id}`;
  const orders = batch.map((w) => w.order).sort((a, b) => byText(byKey(a), byKey(b)));
  // One entry per name over the batch: the first order's id and name, the last reference given (as one order's own).
  const menu = new Map<string, MenuRow & { orders: string[] }>();
  const refs: Array<[key: string, ref: string, order: string]> = [];
  for (const w of batch) {
    for (const m of w.menu) {
      const key = m.name.toLowerCase();
      const entry = menu.get(key);
      if (entry) {
        entry.orders.push(w.order.id);
        if (m.external_item_id != null) entry.external_item_id = m.external_item_id;
      } else menu.set(key, { ...m, orders: [w.order.id] });
    }
    for (const [key, ref] of w.references) refs.push([key, ref, w.order.id]);
  }
  const entries = [...menu.entries()].sort(([a], [b]) => byText(a, b));
  const [row] = await runPrepared<WrittenBatch>(
    em,
    'order.writeBatch',
    sql`with o as (
      insert into customer_order (${names(ORDER_COLUMNS)})
      ${rowsOf('customer_order', 'r', ORDER_COLUMNS, JSON.stringify(orders), business)}
      on conflict (${ORDER_KEY}) do nothing
      returning id, created_at
    ), ins_menu as (
      insert into menu_item (${names(MENU_COLUMNS)})
      select ${pinnedCols('m', MENU_COLUMNS, business)} from ${elementsOf('menu_item', 'm', JSON.stringify(entries.map(([, m]) => m)))}
       where exists (select 1 from o where o.id in (select jsonb_array_elements_text(e->'orders')))
       order by lower(m.name)
      on conflict (business_id, lower(name)) do nothing
      returning id, lower(name) as key
    ), old_menu as (
      select id, lower(name) as key from menu_item where business_id = ${business} and lower(name) = any(${entries.map(([key]) => key)}::text[])
    ), ref_menu as (
      update menu_item mi set external_item_id = r.ref, updated_at = r.at
        from (select distinct on (r.key) r.key, r.ref, o.created_at as at
                from unnest(${refs.map((r) => r[0])}::text[], ${refs.map((r) => r[1])}::text[], ${refs.map((r) => r[2])}::text[]) with ordinality r(key, ref, order_id, n)
                join o on o.id = r.order_id
               order by r.key, r.n desc) r
       where mi.business_id = ${business} and lower(mi.name) = r.key and mi.external_item_id is distinct from r.ref
      returning mi.id
    ), items as (
      insert into order_item (${names(LINE_COLUMNS)}, order_id, menu_item_id)
      select ${pinnedCols('l', LINE_COLUMNS, business)}, l.order_id, ${lineMenuItem(business)}
        from ${elementsOf('order_item', 'l', JSON.stringify(batch.flatMap((w) => w.lines)))}
       where l.order_id in (select id from o)
      returning id, order_id, menu_item_id, name is not null as named
    ), ev as (
      ${insertEvents(
        sql`select ${pinnedCols('v', EVENT_COLUMNS, business)} from ${elementsOf('event', 'v', JSON.stringify(batch.map((w) => ({ ...w.event, order_id: w.order.id }))))}
       where e->>'order_id' in (select id from o)`,
        'id, fanout_pending',
      )}
    )
    select (select coalesce(json_agg(o.id), '[]') from o) as orders,
           (select coalesce(json_agg(items), '[]') from items) as items,
           (select coalesce(json_agg(ev), '[]') from ev) as events`,
  );
  return row;
}

/**
 * Lines whose new menu item a concurrent order inserted after insertLines' snapshot: DO NOTHING waited for that
 * transaction, so a new statement (new snapshot, same transaction) sees the entry and links the line.
 */
export function linkRacedLines(em: EntityManager, order: string, business: string) {
  const build = () =>
    orderKysely(em)
      .updateTable('order_item as oi')
      .from('menu_item as mi')
      .set((eb) => ({ menu_item_id: eb.ref('mi.id') }))
      .where('oi.order_id', '=', order)
      .where('oi.menu_item_id', 'is', null)
      .where('oi.name', 'is not', null)
      .where('mi.business_id', '=', business)
      .where(sql<string>`lower(mi.name)`, '=', sql<string>`lower(oi.name)`)
      .returning(['oi.id', 'oi.menu_item_id']);
  return runShaped(em, 'order.linkRaced', [order, business], build, { prepare: true });
}

const epochMs = (column: string) => sql<number>`(extract(epoch from ${sql.ref(column)}) * 1000)::float8`;
const float = (column: string) => sql<number | null>`${sql.ref(column)}::float8`;

/** An order stored under the idempotency key, its lines and linked submissions, as the presenters take them. */
export async function findOrderByKey(
  em: EntityManager,
  key: { business: string; externalLocationId: string | null; externalOrderId: string },
): Promise<{ order: OrderRecord; items: OrderItemRecord[]; submissions: string[] } | undefined> {
  const parameters = [key.business, key.externalLocationId ?? '', key.externalOrderId];
  const build = () =>
    orderKysely(em)
      .selectFrom('customer_order as o')
      .select((eb) => [
        'o.id',
        'o.business_id',
        'o.external_order_id',
        'o.external_location_id',
        'o.external_brand_id',
        'o.source',
        'o.channel',
        'o.status',
        'o.currency',
        float('o.subtotal').as('subtotal'),
        float('o.delivery_charge').as('delivery_charge'),
        sql<number>`o.total::float8`.as('total'),
        'o.customer_name',
        'o.customer_email',
        'o.customer_phone',
        'o.metadata',
        epochMs('o.created_at').as('created_at'),
        epochMs('o.updated_at').as('updated_at'),
        jsonArrayFrom(
          eb
            .selectFrom('order_item as i')
            .select([
              'i.id',
              'i.business_id as business',
              'i.position',
              'i.menu_item_id as menuItem',
              'i.external_item_id as externalItemId',
              'i.name',
              'i.quantity',
              float('i.unit_price').as('unitPrice'),
              float('i.total_price').as('totalPrice'),
              float('i.sales_tax_percent').as('salesTaxPercent'),
              float('i.sales_tax_amount').as('salesTaxAmount'),
              'i.item_comment as itemComment',
            ])
            .whereRef('i.order_id', '=', 'o.id')
            .whereRef('i.business_id', '=', 'o.business_id')
            .orderBy('i.position'),
        ).as('items'),
        jsonArrayFrom(
          eb
            .selectFrom('submission as s')
            .select('s.id')
            .whereRef('s.order_id', '=', 'o.id')
            .whereRef('s.business_id', '=', 'o.business_id')
            .orderBy('s.created_at', 'desc')
            .orderBy('s.id', 'desc'),
        ).as('submissions'),
      ])
      .where('o.business_id', '=', parameters[0])
      .where(sql<string>`coalesce(o.external_location_id, '')`, '=', parameters[1])
      .where('o.external_order_id', '=', parameters[2]);
  // One text whatever the key: a repeat's read, on the ingest path.
  const [row] = await runShaped(em, 'order.byKey', parameters, build, { prepare: true });
  if (!row) return undefined;
  const order: OrderRecord = {
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
  return { order, items: row.items, submissions: row.submissions.map((s) => s.id) };
}

/**
 * An event of the order's change, in the writer's transaction (a repeat that accepts the order: the ingest path).
 * Answers the trigger's `fanout_pending` (whom to tell: event.signal.ts).
 */
export async function insertEvent(em: EntityManager, event: EventRow): Promise<boolean | null> {
  const [inserted] = await runPrepared(em, 'order.event', insertEvents(rowsOf('event', 'v', EVENT_COLUMNS, JSON.stringify(event), event.business_id, false)));
  return inserted.fanout_pending;
}

/** A dish of an order as an `items` step asks about it: its menu item, the name of its first line, the quantities summed. */
export interface OrderDish {
  menuItem: string;
  name: string;
  quantity: number;
}

/**
 * The order's lines that name a menu item, one per menu item (lines of the same dish asked once), in the order of
 * their first line. One statement through the lines' (order, position) index.
 */
export async function orderDishes(em: EntityManager, business: string, order: string): Promise<OrderDish[]> {
  const { rows } = await sql<{ menu_item: string; name: string | null; menu_name: string | null; quantity: string | null }>`
    select oi.menu_item_id as menu_item, (array_agg(oi.name order by oi.position, oi.id))[1] as name, min(mi.name) as menu_name,
           sum(coalesce(oi.quantity, 1)) as quantity
      from order_item oi left join menu_item mi on mi.id = oi.menu_item_id and mi.business_id = oi.business_id
     where oi.business_id = ${business} and oi.order_id = ${order} and oi.menu_item_id is not null
     group by oi.menu_item_id order by min(oi.position), oi.menu_item_id`.execute(db(em));
  return rows.map((r) => ({ menuItem: r.menu_item, name: r.name ?? r.menu_name ?? r.menu_item, quantity: Number(r.quantity ?? 1) }));
}
