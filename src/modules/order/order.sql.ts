/**
 * The SQL of the order writer (order.writer.ts), kept apart so the hot path reads as a handful of statements.
 * Placeholders are PostgreSQL's own ($n): these run as named prepared statements on the `pg` pool.
 */

/**
 * One statement does the whole write of an order, whichever door it came by:
 *  - o:        upsert on the idempotency key customer_order_external_unique (business, coalesce(location, ''), order id).
 *              A repeat only ever moves PENDING to ACCEPTED (the DO UPDATE's WHERE), and only when $21 allows it
 *              (ingest mode; create mode leaves the stored order alone and answers 409); otherwise it returns no row.
 *  - ins_menu: menu items missing for the lines' names, in one multi-row INSERT ... ON CONFLICT DO NOTHING on the
 *              (business, lower(name)) index, in key order (two orders with the same new names cannot deadlock).
 *              DO NOTHING, not DO UPDATE: a popular menu item is not row-locked by every order that names it.
 *  - old_menu: the entries that already existed (same snapshot, so never the ones ins_menu inserted).
 *  - ref_menu: a changed itemId for an existing name updates the entry's reference (the only case that locks it).
 *  - by_ref:   lines with an itemId and no name match the entry holding that reference.
 *  - items:    the lines, one multi-row INSERT, only when the order was created.
 *  - ev:       order.created, same statement, same transaction.
 * Everything but `o` is skipped for a repeat (the `o.inserted` conditions).
 */
export const INGEST_SQL = `
with o as (
  insert into customer_order as c (id, business_id, external_order_id, external_location_id, external_brand_id, source,
    channel, status, currency, subtotal, delivery_charge, total, customer_name, customer_email, customer_phone, metadata,
    created_at, updated_at)
  values ($2, $1, $3, $4, $5, $22, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15::jsonb, $16, $16)
  on conflict (business_id, coalesce(external_location_id, ''), external_order_id) do update
    set status = 'ACCEPTED', updated_at = excluded.updated_at
    where c.status = 'PENDING' and excluded.status = 'ACCEPTED' and $21::boolean
  returning c.id, (c.xmax = 0) as inserted
),
line as (
  select t.*, lower(t.name) as key
  from jsonb_to_recordset($17::jsonb) as t(id text, position int, item_id text, name text, quantity int,
    unit_price numeric, total_price numeric, sales_tax_percent numeric, sales_tax_amount numeric, item_comment text)
),
menu as (
  select t.id, t.name, t.item_id, lower(t.name) as key
  from jsonb_to_recordset($18::jsonb) as t(id text, name text, item_id text)
  where exists (select 1 from o where o.inserted)
),
ins_menu as (
  insert into menu_item (id, business_id, name, external_item_id, created_at, updated_at)
  select m.id, $1, m.name, m.item_id, $16, $16 from menu m order by m.key
  on conflict (business_id, lower(name)) do nothing
  returning id, lower(name) as key
),
old_menu as (
  select mi.id, lower(mi.name) as key, mi.external_item_id
  from menu_item mi
  where mi.business_id = $1 and lower(mi.name) = any(array(select key from menu))
),
ref_menu as (
  update menu_item mi set external_item_id = m.item_id, updated_at = $16
  from menu m join old_menu om on om.key = m.key
  where mi.id = om.id and m.item_id is not null and om.external_item_id is distinct from m.item_id
  returning mi.id
),
by_ref as (
  select distinct on (mi.external_item_id) mi.external_item_id, mi.id
  from menu_item mi
  where mi.business_id = $1 and exists (select 1 from o where o.inserted)
    and mi.external_item_id = any(array(select item_id from line where name is null and item_id is not null))
  order by mi.external_item_id, mi.created_at, mi.id
),
items as (
  insert into order_item (id, business_id, order_id, position, menu_item_id, external_item_id, name, quantity,
    unit_price, total_price, sales_tax_percent, sales_tax_amount, item_comment, created_at, updated_at)
  select l.id, $1, o.id, l.position,
    case when l.name is not null
      then coalesce((select im.id from ins_menu im where im.key = l.key), (select om.id from old_menu om where om.key = l.key))
      else coalesce(
        -- an itemId-only line naming the reference a named line of this same order carries
        (select coalesce(im.id, om.id) from menu m left join ins_menu im on im.key = m.key left join old_menu om on om.key = m.key
         where m.item_id = l.item_id limit 1),
        (select br.id from by_ref br where br.external_item_id = l.item_id)) end,
    l.item_id, l.name, l.quantity, l.unit_price, l.total_price, l.sales_tax_percent, l.sales_tax_amount, l.item_comment,
    $16, $16
  from line l cross join o
  where o.inserted
  returning id, menu_item_id, name
),
ev as (
  insert into event (id, business_id, type, data, created_at)
  select $19, $1, 'order.created', $20::jsonb, $16 from o where o.inserted
)
select o.id, o.inserted,
  (select coalesce(json_agg(json_build_object('id', i.id, 'menuItem', i.menu_item_id, 'named', i.name is not null)), '[]')
   from items i) as items,
  (select count(*) from ref_menu)::int as references_updated
from o`;

/**
 * Lines whose new menu item was inserted by a concurrent order after this statement's snapshot: DO NOTHING waited
 * for that transaction, so a new statement (new snapshot, same transaction) sees the entry and links the line.
 */
export const LINK_RACED_LINES_SQL = `
update order_item oi set menu_item_id = mi.id
from menu_item mi
where oi.order_id = $1 and oi.menu_item_id is null and oi.name is not null
  and mi.business_id = $2 and lower(mi.name) = lower(oi.name)
returning oi.id, oi.menu_item_id`;

/** An existing order, its lines and linked submissions, as the presenters need them (money as numbers, timestamps as ms). */
export const LOAD_ORDER_SQL = `
select o.id, o.business_id, o.external_order_id, o.external_location_id, o.external_brand_id, o.source, o.channel,
  o.status, o.currency, o.subtotal::float8 as subtotal, o.delivery_charge::float8 as delivery_charge,
  o.total::float8 as total, o.customer_name, o.customer_email, o.customer_phone, o.metadata,
  (extract(epoch from o.created_at) * 1000)::float8 as created_at, (extract(epoch from o.updated_at) * 1000)::float8 as updated_at,
  coalesce((
    select json_agg(json_build_object('id', i.id, 'menuItem', i.menu_item_id, 'position', i.position, 'itemId', i.external_item_id,
      'name', i.name, 'quantity', i.quantity, 'unitPrice', i.unit_price::float8, 'totalPrice', i.total_price::float8,
      'salesTaxPercent', i.sales_tax_percent::float8, 'salesTaxAmount', i.sales_tax_amount::float8,
      'itemComment', i.item_comment) order by i.position)
    from order_item i where i.order_id = o.id), '[]') as items,
  coalesce((select json_agg(s.id order by s.created_at desc, s.id desc) from submission s where s.order_id = o.id), '[]') as submissions
from customer_order o
where o.business_id = $1 and coalesce(o.external_location_id, '') = $2 and o.external_order_id = $3`;

export const INSERT_EVENT_SQL = `
insert into event (id, business_id, type, data, created_at) values ($1, $2, $3, $4::jsonb, $5)`;
