import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '../../shared/id.js';
import { findPage } from '../../kit/list.query.js';
import { findOwned } from '../../kit/resource.js';
import type { ListArgsValue, OrderByValue } from '../../kit/list.args.js';
import { MenuItem } from './menu-item.entity.js';
import type { MenuItemType } from './menu-item.type.js';
import { MENU_ITEM_COLUMNS } from './menu-item.inputs.js';

export function presentMenuItem(item: MenuItem): MenuItemType {
  return {
    id: item.id,
    object: 'menuitem',
    business: item.business,
    name: item.name,
    itemId: item.externalItemId ?? null,
    createdAt: item.createdAt,
    updatedAt: item.updatedAt,
  };
}

export const findMenuItem = (em: EntityManager, business: string, id: string) => findOwned(em, MenuItem, { kind: 'menuItem', label: 'Menu item', business, id });

export function listMenuItems(em: EntityManager, business: string, args: ListArgsValue<object, OrderByValue>) {
  return findPage<MenuItem, MenuItemType>(em, MenuItem, { scope: { business }, args, columns: MENU_ITEM_COLUMNS, present: presentMenuItem });
}

export interface MenuLine {
  name?: string | null;
  itemId?: string | null;
}

/**
 * Menu item id per line (null when it matches none): by trimmed name, case-insensitively, created when missing in
 * one INSERT ... ON CONFLICT on the unique (business, lower(name)) index, so concurrent orders naming the same new
 * item share one entry; a line's itemId becomes the entry's reference. A line with an itemId only matches the
 * entry holding that reference.
 */
export async function syncMenuItems(tx: EntityManager, business: string, lines: MenuLine[]): Promise<(string | null)[]> {
  const named = new Map<string, { name: string; itemId: string | null }>();
  for (const line of lines) {
    const name = line.name?.trim();
    if (!name) continue;
    // The first spelling names a new entry; the last itemId sent for the name becomes its reference.
    const known = named.get(name.toLowerCase());
    named.set(name.toLowerCase(), { name: known?.name ?? name, itemId: line.itemId ?? known?.itemId ?? null });
  }
  const byName = new Map<string, string>();
  if (named.size) {
    const rows = await tx.execute<{ id: string; key: string }[]>(
      `insert into menu_item (id, business_id, name, external_item_id, created_at, updated_at)
       select t.id, ?, t.name, t.item_id, now(), now() from jsonb_to_recordset(?::jsonb) as t(id text, name text, item_id text)
       on conflict (business_id, lower(name)) do update
         set external_item_id = coalesce(excluded.external_item_id, menu_item.external_item_id),
             updated_at = case when excluded.external_item_id is distinct from menu_item.external_item_id
                               and excluded.external_item_id is not null then now() else menu_item.updated_at end
       returning id, lower(name) as key`,
      [business, JSON.stringify([...named.values()].map((v) => ({ id: newId('menuItem'), name: v.name, item_id: v.itemId })))],
    );
    for (const row of rows) byName.set(row.key, row.id);
  }
  const refs = lines.filter((l) => !l.name?.trim() && l.itemId).map((l) => l.itemId!);
  const byRef = new Map<string, string>();
  if (refs.length) {
    const found = await tx.find(MenuItem, { business, externalItemId: { $in: refs } }, { orderBy: { createdAt: 'asc' } });
    for (const item of found) if (!byRef.has(item.externalItemId!)) byRef.set(item.externalItemId!, item.id);
  }
  return lines.map((line) => {
    const name = line.name?.trim();
    if (name) return byName.get(name.toLowerCase()) ?? null;
    return line.itemId ? (byRef.get(line.itemId) ?? null) : null;
  });
}
