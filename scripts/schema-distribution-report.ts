/**
 * What distributing the database by `business_id` on Citus would ask of today's schema, read from the live catalog
 * of a migrated database (tables, keys, foreign keys and triggers as PostgreSQL has them, not as the entities say):
 * which tables would be distributed, which would be reference tables, which primary and unique keys would have to
 * include `business_id`, which foreign keys would cross shards or carry actions Citus refuses, which triggers reach other
 * tables or NOTIFY, what partitions hold that their parent does not, where `business_id` may be NULL, and the order
 * reference tables must be created in. Each finding is one Citus 13.2 refused on a real cluster. docs/scaling.md explains.
 *   npm run schema:distribution-report                  a throwaway embedded PostgreSQL, migrated, then removed
 *   DATABASE_URL=postgresql://... npm run schema:distribution-report [-- --json]     that database, as it is
 */
import 'reflect-metadata';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { ormConfig } from '../src/db/orm.config.js';
import { openDatabase } from '../src/db/database.js';

export const DISTRIBUTION_COLUMN = 'business_id';
/** The ORM's own bookkeeping: it stays on the coordinator, whatever the rest does. */
const LOCAL_TABLES = new Set(['mikro_orm_migrations']);

export interface DistributionReport {
  column: string;
  /** The tenant table itself (`business`), distributed by the column the others' `business_id` points at. */
  tenant: { table: string; column: string } | null;
  distributed: Array<{ table: string; column: string; nullable: boolean; estimatedRows: number }>;
  /** No `business_id` and no foreign key into tenant data: copied whole to every node. */
  reference: Array<{ table: string; estimatedRows: number; writes: number }>;
  /** No `business_id`, but a foreign key into tenant data: needs `business_id` (or loses the foreign key). */
  needsColumn: Array<{ table: string; references: string[] }>;
  keysMissingColumn: Array<{ table: string; name: string; kind: 'primary key' | 'unique' | 'unique index'; definition: string }>;
  crossingForeignKeys: Array<{ table: string; name: string; columns: string[]; references: string; referencedColumns: string[]; reason: string }>;
  /** `notifies`: its function (or one it calls) raises NOTIFY, which on a shard reaches no listener and fails a two-phase commit. */
  triggers: Array<{ table: string; trigger: string; function: string; touches: string[]; notifies: boolean }>;
  /** Actions Citus refuses on a foreign key holding the column: now, or once the key is made (column, x). */
  foreignKeyActions: Array<{ table: string; name: string; columns: string[]; references: string; onUpdate: string; onDelete: string; reason: string }>;
  /** What a partition holds that its partitioned table does not, or a partitioned table's foreign keys Citus cannot check. */
  partitions: Array<{ table: string; partition: string | null; name: string; definition: string; reason: string }>;
  /** Tenant tables whose column may be NULL, and how many rows have it NULL now (such rows belong to no shard). */
  nullBusiness: Array<{ table: string; nullRows: number }>;
  /** Reference tables in the order they must be created (a referenced one first), and the distributed tables pointing at each. */
  referenceOrder: Array<{ table: string; after: string[]; referencedBy: string[] }>;
  /** Tables needing changes, by kind of finding. */
  changes: Record<ChangeKind, string[]>;
  /** Tables that must change before they can be distributed, whatever the kind. */
  tablesToChange: string[];
}

export const CHANGE_KINDS = ['keys', 'foreign keys', 'foreign-key actions', 'triggers', 'partitions', 'NULL business_id', 'into tenant data'] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

interface TableRow {
  table: string;
  rows: number;
  writes: number;
  has_column: boolean;
  nullable: boolean;
}
interface ForeignKeyRow {
  name: string;
  table: string;
  references: string;
  columns: string[];
  referenced_columns: string[];
  on_update: string;
  on_delete: string;
}
interface PartitionKeyRow {
  table: string;
  partition: string;
  name: string;
  columns: string[];
  definition: string;
}
interface PartitionedForeignKeyRow {
  table: string;
  name: string;
  type: string;
}
interface UniqueRow {
  name: string;
  table: string;
  primary: boolean;
  constraint: boolean;
  columns: string[];
  definition: string;
}
interface TriggerRow {
  table: string;
  trigger: string;
  function: string;
}
interface FunctionRow {
  name: string;
  source: string;
}

// Partitions are folded into their partitioned table: rows and writes summed over its leaves.
const TABLES = `
  select c.relname as "table",
         (select coalesce(sum(greatest(l.reltuples, 0)), 0) from pg_partition_tree(c.oid) t join pg_class l on l.oid = t.relid where t.isleaf)::float8 as rows,
         (select coalesce(sum(s.n_tup_ins + s.n_tup_upd + s.n_tup_del), 0) from pg_partition_tree(c.oid) t join pg_stat_user_tables s on s.relid = t.relid)::float8 as writes,
         a.attname is not null as has_column,
         coalesce(not a.attnotnull, false) as nullable
    from pg_class c
    join pg_namespace n on n.oid = c.relnamespace
    left join pg_attribute a on a.attrelid = c.oid and a.attname = ? and not a.attisdropped
   where n.nspname = current_schema() and c.relkind in ('r', 'p') and not c.relispartition
   order by 1`;
const columnsOf = (rel: string, keys: string) =>
  `array(select a.attname::text from unnest(${keys}) with ordinality k(num, i) join pg_attribute a on a.attrelid = ${rel} and a.attnum = k.num order by k.i)::text[]`;
const FOREIGN_KEYS = `
  select con.conname as name, src.relname as "table", dst.relname as "references",
         ${columnsOf('con.conrelid', 'con.conkey')} as columns,
         ${columnsOf('con.confrelid', 'con.confkey')} as referenced_columns,
         con.confupdtype::text as on_update, con.confdeltype::text as on_delete
    from pg_constraint con
    join pg_class src on src.oid = con.conrelid
    join pg_class dst on dst.oid = con.confrelid
    join pg_namespace n on n.oid = src.relnamespace
   where con.contype = 'f' and con.conparentid = 0 and n.nspname = current_schema() and not src.relispartition
   order by 2, 1`;
// Only plain columns count: Citus needs the distribution column itself in a unique index, not an expression of it.
const UNIQUE_KEYS = `
  select ic.relname as name, c.relname as "table", i.indisprimary as primary,
         exists (select 1 from pg_constraint k where k.conindid = i.indexrelid and k.contype in ('p', 'u')) as "constraint",
         ${columnsOf('i.indrelid', 'i.indkey::int2[]')} as columns,
         coalesce((select pg_get_constraintdef(k.oid) from pg_constraint k where k.conindid = i.indexrelid and k.contype in ('p', 'u')),
                  'UNIQUE INDEX ' || substring(pg_get_indexdef(i.indexrelid) from 'USING \\w+ (.*)$')) as definition
    from pg_index i
    join pg_class c on c.oid = i.indrelid
    join pg_class ic on ic.oid = i.indexrelid
    join pg_namespace n on n.oid = c.relnamespace
   where i.indisunique and n.nspname = current_schema() and not c.relispartition and c.relkind in ('r', 'p')
   order by 2, 1`;
// A partition's unique index that no index of its partitioned table owns (left there when the table was partitioned).
const PARTITION_KEYS = `
  select root.relname as "table", c.relname as partition, ic.relname as name,
         ${columnsOf('i.indrelid', 'i.indkey::int2[]')} as columns,
         coalesce((select pg_get_constraintdef(k.oid) from pg_constraint k where k.conindid = i.indexrelid and k.contype in ('p', 'u')),
                  'UNIQUE INDEX ' || substring(pg_get_indexdef(i.indexrelid) from 'USING \\w+ (.*)$')) as definition
    from pg_index i
    join pg_class c on c.oid = i.indrelid
    join pg_class ic on ic.oid = i.indexrelid
    join pg_class root on root.oid = pg_partition_root(c.oid)
    join pg_namespace n on n.oid = c.relnamespace
   where i.indisunique and c.relispartition and n.nspname = current_schema()
     and not exists (select 1 from pg_inherits h where h.inhrelid = i.indexrelid)
   order by 1, 2, 3`;
// Foreign keys of a partitioned table whose column is compared through a cast (varchar = varchar is texteq on ::text):
// Citus 13.2 checks a partition's foreign key on the workers with a join on the casts, which it refuses as not
// co-located, when distributing and for every partition created afterwards. text (or a type with its own =) is checked.
const PARTITIONED_FOREIGN_KEYS = `
  select c.relname as "table", con.conname as name, format_type(a.atttypid, a.atttypmod) as type
    from pg_constraint con
    join pg_class c on c.oid = con.conrelid
    join pg_namespace n on n.oid = c.relnamespace
    join pg_attribute a on a.attrelid = c.oid and a.attname = ? and not a.attisdropped
   where con.contype = 'f' and con.conparentid = 0 and c.relkind = 'p' and not c.relispartition and n.nspname = current_schema()
     and a.atttypid in ('varchar'::regtype, 'bpchar'::regtype)
   order by 1, 2`;
const TRIGGERS = `
  select c.relname as "table", t.tgname as "trigger", p.proname as "function"
    from pg_trigger t
    join pg_class c on c.oid = t.tgrelid
    join pg_proc p on p.oid = t.tgfoid
    join pg_namespace n on n.oid = c.relnamespace
   where not t.tgisinternal and t.tgparentid = 0 and n.nspname = current_schema() and not c.relispartition
   order by 1, 2`;
const FUNCTIONS = `
  select p.proname as name, p.prosrc as source
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
   where n.nspname = current_schema() and p.prolang = (select oid from pg_language where lanname = 'plpgsql')`;

/** The report for the database `em` is connected to. */
export async function distributionReport(em: EntityManager, column = DISTRIBUTION_COLUMN): Promise<DistributionReport> {
  const connection = em.getConnection();
  const tables = ((await connection.execute(TABLES, [column])) as TableRow[]).filter((t) => !LOCAL_TABLES.has(t.table));
  const foreignKeys = (await connection.execute(FOREIGN_KEYS)) as ForeignKeyRow[];
  const uniques = (await connection.execute(UNIQUE_KEYS)) as UniqueRow[];
  const triggers = (await connection.execute(TRIGGERS)) as TriggerRow[];
  const functions = new Map(((await connection.execute(FUNCTIONS)) as FunctionRow[]).map((f) => [f.name, f.source]));
  const partitionKeys = (await connection.execute(PARTITION_KEYS)) as PartitionKeyRow[];
  const partitionedForeignKeys = (await connection.execute(PARTITIONED_FOREIGN_KEYS, [column])) as PartitionedForeignKeyRow[];

  // The tenant table: what the tables' single-column foreign keys on `business_id` point at.
  const withColumn = new Set(tables.filter((t) => t.has_column).map((t) => t.table));
  const toTenant = foreignKeys.filter((fk) => withColumn.has(fk.table) && fk.columns.length === 1 && fk.columns[0] === column);
  const tenantTable = mostCommon(toTenant.map((fk) => fk.references));
  const tenant = tenantTable ? { table: tenantTable, column: toTenant.find((fk) => fk.references === tenantTable)!.referenced_columns[0] } : null;
  const distributionColumn = new Map<string, string>([...withColumn].map((t) => [t, column]));
  if (tenant) distributionColumn.set(tenant.table, tenant.column);

  const known = new Set(tables.map((t) => t.table));
  const isDistributed = (table: string) => distributionColumn.has(table);
  const crossingForeignKeys: DistributionReport['crossingForeignKeys'] = [];
  for (const fk of foreignKeys) {
    if (!known.has(fk.table) || !known.has(fk.references)) continue;
    const base = { table: fk.table, name: fk.name, columns: fk.columns, references: fk.references, referencedColumns: fk.referenced_columns };
    if (isDistributed(fk.table) && isDistributed(fk.references)) {
      const at = fk.columns.indexOf(distributionColumn.get(fk.table)!);
      if (at < 0 || fk.referenced_columns[at] !== distributionColumn.get(fk.references)) {
        crossingForeignKeys.push({ ...base, reason: `does not include ${column}: it would join across shards` });
      }
    } else if (!isDistributed(fk.table) && isDistributed(fk.references)) {
      crossingForeignKeys.push({ ...base, reason: 'points from a table without the column into a distributed table' });
    }
  }
  const pointsIntoTenantData = new Map<string, string[]>();
  for (const fk of crossingForeignKeys.filter((f) => !isDistributed(f.table))) {
    pointsIntoTenantData.set(fk.table, [...(pointsIntoTenantData.get(fk.table) ?? []), fk.references]);
  }

  const keysMissingColumn = uniques
    .filter((u) => isDistributed(u.table) && !u.columns.includes(distributionColumn.get(u.table)!))
    .map((u) => ({
      table: u.table,
      name: u.name,
      kind: u.primary ? ('primary key' as const) : u.constraint ? ('unique' as const) : ('unique index' as const),
      definition: u.definition,
    }));

  // The tables a trigger's function names, in its own text or in the functions it calls (and they call).
  const mentions = (text: string, names: Iterable<string>) => [...names].filter((n) => new RegExp(`\\b${n}\\b`).test(text));
  const reached = (fn: string, seen = new Set<string>()): string[] => {
    if (seen.has(fn) || !functions.has(fn)) return [];
    seen.add(fn);
    const source = functions.get(fn)!;
    const called = mentions(source, functions.keys()).filter((f) => new RegExp(`\\b${f}\\s*\\(`).test(source));
    return [fn, ...called.flatMap((f) => reached(f, seen))];
  };
  const touched = (fn: string) => reached(fn).flatMap((f) => mentions(functions.get(f)!, known));
  // pg_notify(...) or a NOTIFY statement, in the function or any it calls.
  const notifies = (fn: string) => reached(fn).some((f) => /\bpg_notify\s*\(|\bnotify\s+\w/i.test(functions.get(f)!));
  const distributedTriggers = triggers
    .filter((t) => isDistributed(t.table))
    .map((t) => ({
      table: t.table,
      trigger: t.trigger,
      function: t.function,
      touches: [...new Set(touched(t.function))].filter((n) => n !== t.table).sort(),
      notifies: notifies(t.function),
    }));

  // Citus keeps a row's column as it is: no action on a foreign key holding it may change it (ON UPDATE anything but
  // NO ACTION / RESTRICT, ON DELETE SET NULL / SET DEFAULT, even PostgreSQL 15's SET NULL (x) naming other columns).
  const ACTIONS: Record<string, string> = { a: 'NO ACTION', r: 'RESTRICT', c: 'CASCADE', n: 'SET NULL', d: 'SET DEFAULT' };
  const crossingNames = new Set(crossingForeignKeys.map((f) => f.name));
  const foreignKeyActions: DistributionReport['foreignKeyActions'] = [];
  for (const fk of foreignKeys) {
    if (!isDistributed(fk.table) || !isDistributed(fk.references)) continue;
    const onUpdate = ACTIONS[fk.on_update] ?? fk.on_update;
    const onDelete = ACTIONS[fk.on_delete] ?? fk.on_delete;
    const badUpdate = ['c', 'n', 'd'].includes(fk.on_update);
    const badDelete = ['n', 'd'].includes(fk.on_delete);
    if (!badUpdate && !badDelete) continue;
    const what = [badUpdate ? `ON UPDATE ${onUpdate}` : '', badDelete ? `ON DELETE ${onDelete}` : ''].filter(Boolean).join(' and ');
    const reason = crossingNames.has(fk.name)
      ? `once (${column}, ${fk.columns.join(', ')}), ${what} would change ${column} too, which Citus refuses (even as SET NULL (${fk.columns.join(', ')})): NO ACTION, and the application clears ${fk.columns.join(', ')}`
      : `${what} on a key holding ${column}: Citus refuses it; NO ACTION or RESTRICT`;
    foreignKeyActions.push({ table: fk.table, name: fk.name, columns: fk.columns, references: fk.references, onUpdate, onDelete, reason });
  }

  const partitions: DistributionReport['partitions'] = [
    ...partitionKeys
      .filter((k) => isDistributed(k.table) && !k.columns.includes(distributionColumn.get(k.table)!))
      .map((k) => ({
        table: k.table,
        partition: k.partition,
        name: k.name,
        definition: k.definition,
        reason: `the partition's own unique key, without ${column}: Citus refuses it as any unique key`,
      })),
    ...partitionedForeignKeys
      .filter((k) => isDistributed(k.table))
      .map((k) => ({
        table: k.table,
        partition: null,
        name: k.name,
        definition: `${column} ${k.type}`,
        reason: `a foreign key of a partitioned table on a ${k.type} ${column}: Citus checks it on the workers through ::text casts and refuses the join, at distribution and for each new partition; make the columns text`,
      })),
  ];

  const nullBusiness: DistributionReport['nullBusiness'] = [];
  for (const t of tables.filter((x) => x.has_column && x.nullable)) {
    const [row] = (await connection.execute(`select count(*)::int as n from "${t.table}" where "${column}" is null`)) as Array<{ n: number }>;
    nullBusiness.push({ table: t.table, nullRows: row.n });
  }

  // Reference tables: a referenced one before those referring to it, all before the distributed tables pointing at them.
  const referenceTables = tables.filter((t) => !isDistributed(t.table) && !pointsIntoTenantData.has(t.table)).map((t) => t.table);
  const referenceSet = new Set(referenceTables);
  const after = new Map(
    referenceTables.map((t) => [
      t,
      [...new Set(foreignKeys.filter((fk) => fk.table === t && referenceSet.has(fk.references) && fk.references !== t).map((fk) => fk.references))].sort(),
    ]),
  );
  const referenceOrder: DistributionReport['referenceOrder'] = [];
  const placed = new Set<string>();
  const place = (t: string, path: Set<string>) => {
    if (placed.has(t) || path.has(t)) return;
    path.add(t);
    for (const dep of after.get(t)!) place(dep, path);
    placed.add(t);
    const referencedBy = [...new Set(foreignKeys.filter((fk) => fk.references === t && isDistributed(fk.table)).map((fk) => fk.table))].sort();
    referenceOrder.push({ table: t, after: after.get(t)!, referencedBy });
  };
  for (const t of referenceTables) place(t, new Set());

  const distributed = tables.filter((t) => withColumn.has(t.table)).map((t) => ({ table: t.table, column, nullable: t.nullable, estimatedRows: t.rows }));
  const unique = (names: string[]) => [...new Set(names)].sort();
  const changes: Record<ChangeKind, string[]> = {
    keys: unique(keysMissingColumn.map((k) => k.table)),
    'foreign keys': unique(crossingForeignKeys.map((f) => f.table)),
    'foreign-key actions': unique(foreignKeyActions.map((f) => f.table)),
    triggers: unique(distributedTriggers.filter((t) => t.touches.length > 0 || t.notifies).map((t) => t.table)),
    partitions: unique(partitions.map((p) => p.table)),
    'NULL business_id': unique(nullBusiness.map((n) => n.table)),
    'into tenant data': unique([...pointsIntoTenantData.keys()]),
  };
  const tablesToChange = new Set(Object.values(changes).flat());
  return {
    column,
    tenant,
    distributed,
    reference: tables
      .filter((t) => !isDistributed(t.table) && !pointsIntoTenantData.has(t.table))
      .map((t) => ({ table: t.table, estimatedRows: t.rows, writes: t.writes })),
    needsColumn: [...pointsIntoTenantData].map(([table, references]) => ({ table, references: [...new Set(references)] })),
    keysMissingColumn,
    crossingForeignKeys,
    triggers: distributedTriggers,
    foreignKeyActions,
    partitions,
    nullBusiness,
    referenceOrder,
    changes,
    tablesToChange: [...tablesToChange].sort(),
  };
}

function mostCommon(values: string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
}

/** The report as text, for a person. */
export function formatReport(r: DistributionReport): string {
  const lines: string[] = [];
  const section = (title: string, body: string[]) => lines.push('', title, ...(body.length ? body.map((b) => `  ${b}`) : ['  (none)']));
  const rows = (n: number) => (n > 0 ? ` ~${Math.round(n)} rows` : '');
  lines.push(
    `Citus, distributed by ${r.column}: ${r.distributed.length + (r.tenant ? 1 : 0)} distributed tables, ${r.reference.length} reference tables, ` +
      `${r.needsColumn.length} without ${r.column} that point into tenant data; ${r.tablesToChange.length} tables need changes first ` +
      `(${CHANGE_KINDS.map((k) => `${k} ${r.changes[k].length}`).join(', ')}).`,
  );
  section(`Distributed (${r.distributed.length + (r.tenant ? 1 : 0)}), co-located by business:`, [
    ...(r.tenant ? [`${r.tenant.table} (by ${r.tenant.column}: the tenant itself)`] : []),
    ...r.distributed.map((d) => `${d.table}${rows(d.estimatedRows)}${d.nullable ? ` (${r.column} may be NULL)` : ''}`),
  ]);
  section(
    `Reference tables (${r.reference.length}): no ${r.column}, copied whole to every node; each write goes to all of them, so a table written often is better kept local to the coordinator:`,
    r.reference.map((t) => `${t.table}${rows(t.estimatedRows)}${t.writes ? `, ${Math.round(t.writes)} rows written since the statistics were reset` : ''}`),
  );
  section(
    `Create the reference tables first, in this order, with citus.enable_local_reference_table_foreign_keys off: left on, a reference table that distributed tables point at turns them, and ${r.tenant?.table ?? 'the tenant table'} through them, into Citus local tables, which cannot then be distributed:`,
    r.referenceOrder.map(
      (t) =>
        `${t.table}${t.after.length ? ` (after ${t.after.join(', ')})` : ''}${t.referencedBy.length ? `, pointed at by ${t.referencedBy.join(', ')}` : ''}`,
    ),
  );
  section(
    `No ${r.column}, but a foreign key into tenant data (${r.needsColumn.length}): add ${r.column} and distribute, or drop the foreign key:`,
    r.needsColumn.map((t) => `${t.table} -> ${t.references.join(', ')}`),
  );
  const byTable = new Map<string, string[]>();
  for (const k of r.keysMissingColumn) byTable.set(k.table, [...(byTable.get(k.table) ?? []), `${k.name} ${k.definition}`]);
  section(
    `Primary and unique keys without ${r.column} (${r.keysMissingColumn.length} on ${byTable.size} tables): a distributed table's unique keys must include it:`,
    [...byTable].map(([table, keys]) => `${table}: ${keys.join('; ')}`),
  );
  section(
    `Foreign keys that would cross distribution (${r.crossingForeignKeys.length}): make them (${r.column}, x) -> (${r.column}, id):`,
    r.crossingForeignKeys.map((f) => `${f.table}(${f.columns.join(', ')}) -> ${f.references}(${f.referencedColumns.join(', ')}) [${f.name}]: ${f.reason}`),
  );
  section(
    `Foreign-key actions Citus refuses (${r.foreignKeyActions.length} on ${r.changes['foreign-key actions'].length} tables): nothing may change ${r.column} of a row:`,
    r.foreignKeyActions.map((f) => `${f.table}(${f.columns.join(', ')}) -> ${f.references} [${f.name}]: ${f.reason}`),
  );
  const triggerChanges = r.triggers.filter((t) => t.touches.length > 0 || t.notifies);
  section(
    `Triggers on distributed tables (${r.triggers.length}; ${triggerChanges.length} on ${r.changes.triggers.length} tables reach other tables or NOTIFY): Citus distributes a table with triggers only with citus.enable_unsafe_triggers on, then runs them on the shard: a query of other tables runs from there, and a NOTIFY reaches no listener and fails any two-phase commit:`,
    r.triggers.map(
      (t) =>
        `${t.table}.${t.trigger} -> ${t.function}()${t.touches.length ? `, names ${t.touches.join(', ')}` : ''}${t.notifies ? ', NOTIFY' : ''}${t.touches.length || t.notifies ? '' : ' (its own row only)'}`,
    ),
  );
  section(
    `Partitions (${r.partitions.length} on ${r.changes.partitions.length} tables): what the partitioned table does not show:`,
    r.partitions.map((p) => `${p.table}${p.partition ? ` partition ${p.partition}` : ''}: ${p.name} ${p.definition}: ${p.reason}`),
  );
  section(
    `${r.column} may be NULL (${r.nullBusiness.length}): Citus refuses to distribute a NULL ${r.column} and to insert one; such rows need a table of their own or a business:`,
    r.nullBusiness.map((n) => `${n.table}: ${n.nullRows} row${n.nullRows === 1 ? '' : 's'} with ${r.column} NULL now`),
  );
  section(`Tables to change before distributing (${r.tablesToChange.length}):`, [r.tablesToChange.join(', ')]);
  return lines.join('\n');
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });

async function main() {
  const json = process.argv.includes('--json');
  let report: DistributionReport;
  const url = process.env.DATABASE_URL;
  if (url) {
    const orm = await MikroORM.init(ormConfig(url));
    try {
      const pending = await orm.migrator.getPending();
      if (pending.length) console.error(`note: ${pending.length} migrations are not applied to this database; the report reads its schema as it is`);
      report = await distributionReport(orm.em.fork());
    } finally {
      await orm.close(true);
    }
  } else {
    // No database given: a throwaway one, migrated from the committed migrations.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'distribution-report-'));
    fs.chmodSync(dataDir, 0o755);
    const db = await openDatabase({ dataDir, embeddedPgPort: await freePort() }, undefined, { ephemeral: true });
    try {
      report = await distributionReport(db.orm.em.fork());
    } finally {
      await db.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  }
  console.log(json ? JSON.stringify(report, null, 2) : formatReport(report));
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
