/**
 * What distributing the database by `business_id` on Citus would ask of today's schema, read from the live catalog
 * of a migrated database (tables, keys, foreign keys and triggers as PostgreSQL has them, not as the entities say):
 * which tables would be distributed, which would be reference tables, which primary and unique keys would have to
 * include `business_id`, which foreign keys would cross shards, and which triggers to check. docs/scaling.md explains.
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
  triggers: Array<{ table: string; trigger: string; function: string; touches: string[] }>;
  /** Tables whose keys, foreign keys or distribution column must change before they can be distributed. */
  tablesToChange: string[];
}

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
         ${columnsOf('con.confrelid', 'con.confkey')} as referenced_columns
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
    .map((u) => ({ table: u.table, name: u.name, kind: u.primary ? ('primary key' as const) : u.constraint ? ('unique' as const) : ('unique index' as const), definition: u.definition }));

  // The tables a trigger's function names, in its own text or in the functions it calls (and they call).
  const mentions = (text: string, names: Iterable<string>) => [...names].filter((n) => new RegExp(`\\b${n}\\b`).test(text));
  const touched = (fn: string, seen = new Set<string>()): string[] => {
    if (seen.has(fn) || !functions.has(fn)) return [];
    seen.add(fn);
    const source = functions.get(fn)!;
    const called = mentions(source, functions.keys()).filter((f) => new RegExp(`\\b${f}\\s*\\(`).test(source));
    return [...mentions(source, known), ...called.flatMap((f) => touched(f, seen))];
  };
  const distributedTriggers = triggers
    .filter((t) => isDistributed(t.table))
    .map((t) => ({ table: t.table, trigger: t.trigger, function: t.function, touches: [...new Set(touched(t.function))].filter((n) => n !== t.table).sort() }));

  const distributed = tables
    .filter((t) => withColumn.has(t.table))
    .map((t) => ({ table: t.table, column, nullable: t.nullable, estimatedRows: t.rows }));
  const tablesToChange = new Set<string>([
    ...keysMissingColumn.map((k) => k.table),
    ...crossingForeignKeys.map((f) => f.table),
    ...distributed.filter((d) => d.nullable).map((d) => d.table),
  ]);
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
      `${r.needsColumn.length} without ${r.column} that point into tenant data; ${r.tablesToChange.length} tables need changes first.`,
  );
  section(
    `Distributed (${r.distributed.length + (r.tenant ? 1 : 0)}), co-located by business:`,
    [
      ...(r.tenant ? [`${r.tenant.table} (by ${r.tenant.column}: the tenant itself)`] : []),
      ...r.distributed.map((d) => `${d.table}${rows(d.estimatedRows)}${d.nullable ? ` (${r.column} may be NULL: such rows have no shard)` : ''}`),
    ],
  );
  section(
    `Reference tables (${r.reference.length}): no ${r.column}, copied whole to every node; each write goes to all of them, so a table written often is better kept local to the coordinator:`,
    r.reference.map((t) => `${t.table}${rows(t.estimatedRows)}${t.writes ? `, ${Math.round(t.writes)} rows written since the statistics were reset` : ''}`),
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
    `Triggers on distributed tables (${r.triggers.length}): each must stay within its row's business (a query of another shard fails there):`,
    r.triggers.map((t) => `${t.table}.${t.trigger} -> ${t.function}()${t.touches.length ? `, names ${t.touches.join(', ')}` : ''}`),
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
