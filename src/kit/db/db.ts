import { createHash } from 'node:crypto';
import pg from 'pg';
import { EventType, type EntityManager, type TransactionEventArgs } from '@mikro-orm/core';
import type { PostgreSqlConnection, SqlEntityManager } from '@mikro-orm/postgresql';
import { readsOnReplicas, ReplicaConnection } from '../replicas/replica.driver.js';
import {
  CompiledQuery,
  PostgresQueryCompiler,
  sql,
  type Compilable,
  type RawBuilder,
  type Kysely,
  type KyselyPlugin,
  type PluginTransformQueryArgs,
  type PluginTransformResultArgs,
  type QueryId,
  type QueryResult,
  type RootOperationNode,
  type UnknownRow,
} from 'kysely';

/** The ORM's statement log (protected in its types; the ORM calls it once per statement it runs). */
interface StatementLog {
  logQuery(query: string, context?: { took?: number; results?: number }): void;
}

const compiler = new PostgresQueryCompiler();

const log = (em: EntityManager) => em.getConnection() as unknown as StatementLog;

/**
 * Logs every statement of the Kysely it is added to in the ORM's own statement log, as the ORM logs its own: the
 * debug log and the tests' statement counts see every statement, whichever way it was written.
 */
class StatementLogPlugin implements KyselyPlugin {
  private readonly pending = new WeakMap<QueryId, { node: RootOperationNode; started: number }>();

  constructor(private readonly log: StatementLog) {}

  transformQuery({ node, queryId }: PluginTransformQueryArgs): RootOperationNode {
    this.pending.set(queryId, { node, started: performance.now() });
    return node;
  }

  async transformResult({ result, queryId }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const pending = this.pending.get(queryId);
    if (pending) {
      const { sql } = compiler.compileQuery(pending.node, queryId);
      this.log.logQuery(sql, { took: Math.round(performance.now() - pending.started), results: result.rows.length });
    }
    return result;
  }
}

const plugins = new WeakMap<object, StatementLogPlugin>();

/**
 * The one way to write SQL here: MikroORM's own Kysely (`em.getKysely()`), so a statement runs inside `em`'s
 * transaction when it has one (and on the pool otherwise), with Kysely's `$n` parameters, and is logged as the ORM's
 * statements are. Untyped by default: the kit reads any entity's table from its metadata (entity.rows.ts); a
 * module's repository may name its tables' types.
 */
export function db<DB = any>(em: EntityManager): Kysely<DB> {
  const connection = log(em);
  let plugin = plugins.get(connection);
  if (!plugin) plugins.set(connection, (plugin = new StatementLogPlugin(connection)));
  // A lag-tolerant read (read.routing.ts) asks for a read connection: a replica's, or the primary's when none is usable.
  const kysely = (em as SqlEntityManager).getKysely<DB>(readsOnReplicas(em) ? { type: 'read' } : undefined);
  return kysely.withPlugin(plugin) as Kysely<DB>;
}

/** SQL text by statement shape; bounded, as shapes come partly from callers (which filters a list is given). */
const texts = new Map<string, string>();
const MAX_SHAPES = 2_000;

/**
 * The texts PostgreSQL keeps parsed and planned on each connection, each with its statement name (a hash of the
 * text, so a name always means one text). A connection keeps what it prepared for its whole life, so only the first
 * MAX_PREPARED texts asked for are prepared, whatever documents or options callers send; later ones run unnamed.
 */
const prepared = new Map<string, string>();
export const MAX_PREPARED = 500;

/**
 * node-postgres's client, naming the statements the service prepares (see `prepared`): PostgreSQL then parses and
 * plans each once per connection instead of once per run. Kysely hands the client the text and its values; every
 * other statement goes on as it came. Set as the ORM pool's client class in src/db/orm.config.ts.
 */
export class PreparingClient extends pg.Client {
  // node-postgres's query() has many overloads: Kysely calls (text, values), the pool's own query() (runShaped outside
  // a transaction) calls (text, values, callback).
  query(...args: unknown[]): never {
    const [text, values, callback, ...rest] = args;
    const plain = typeof text === 'string' && Array.isArray(values) && (callback === undefined || typeof callback === 'function') && !rest.length;
    const name = plain ? prepared.get(text) : undefined;
    const call = super.query as (...a: unknown[]) => never;
    if (!name) return call.apply(this, args);
    // A Query of pg's own made from the text, then named: a config object would be copied property by property on
    // every run (pg's normalizeQueryConfig).
    const named = (done: (err: Error | undefined, result: unknown) => void) => {
      const query = new pg.Query(text as string, values as unknown[], done);
      (query as unknown as { name: string }).name = name;
      return call.call(this, query);
    };
    if (typeof callback === 'function') return named(callback as (err: Error | undefined, result: unknown) => void);
    return new Promise((resolve, reject) => named((err, result) => (err ? reject(err) : resolve(result)))) as never;
  }
}

/**
 * Several scalar expressions (each module's own, from its repository: a queue's first due time) read in one statement,
 * one round trip for all: their values, in order.
 */
export async function selectEach<T>(em: EntityManager, parts: RawBuilder<T>[]): Promise<Array<T | null>> {
  const { rows } = await sql<Record<string, T | null>>`select ${sql.join(parts.map((part, i) => sql`${part} as ${sql.ref(`v${i}`)}`))}`.execute(db(em));
  return parts.map((_, i) => rows[0]?.[`v${i}`] ?? null);
}

export interface ShapedOptions {
  /** Keep it parsed and planned on each connection (see `prepared`): for statements run again and again. */
  prepare?: boolean;
}

/**
 * Runs a statement of a known shape (the kit's lists and loaders: one text per entity, key, order and filtered
 * fields): `build` is compiled by Kysely the first time `shape` is met and its text kept, then every call runs that
 * text with its own `parameters`. They must be the built query's own, in order, which is checked when it is built.
 */
export async function runShaped<R>(
  em: EntityManager,
  shape: string,
  parameters: readonly unknown[],
  build: () => Compilable<R>,
  options: ShapedOptions = {},
): Promise<R[]> {
  let text = texts.get(shape);
  if (text === undefined) {
    const compiled = build().compile();
    if (compiled.parameters.length !== parameters.length || compiled.parameters.some((value, i) => value !== parameters[i])) {
      throw new Error(`the statement ${JSON.stringify(shape)} carries other parameters than the ones given`);
    }
    if (texts.size >= MAX_SHAPES) texts.delete(texts.keys().next().value as string);
    texts.set(shape, (text = compiled.sql));
    if (options.prepare && prepared.size < MAX_PREPARED) prepared.set(text, `s${createHash('sha1').update(text).digest('base64url').slice(0, 20)}`);
  }
  const started = performance.now();
  // In a transaction, on its connection. Outside one, straight on the ORM's pool: Kysely's connection handling, run
  // for every statement, cost a list page more CPU than its statements did (bench/graphql-list.js measures it).
  const rows = em.getTransactionContext()
    ? (await (em as SqlEntityManager).getKysely().executeQuery<R>(CompiledQuery.raw(text, [...parameters]))).rows
    : await onPool<R>(em, text, parameters as unknown[]);
  log(em).logQuery(text, { took: Math.round(performance.now() - started), results: rows.length });
  return rows;
}

/**
 * A statement written with Kysely's `sql` tag and run again and again with other values (a queue's lease, a guest's
 * step): compiled on each call, kept parsed and planned by PostgreSQL on each connection (runShaped, prepared).
 */
export function runPrepared<R>(em: EntityManager, shape: string, statement: RawBuilder<R>): Promise<R[]> {
  const compiled = statement.compile(db(em));
  return runShaped<R>(em, shape, compiled.parameters, () => ({ compile: () => compiled }), { prepare: true });
}

/** A statement outside a transaction: on the primary's pool, or for a lag-tolerant read on the replica chosen for it. */
async function onPool<R>(em: EntityManager, text: string, parameters: unknown[]): Promise<R[]> {
  const connection = readsOnReplicas(em) ? em.getConnection('read') : undefined;
  if (connection instanceof ReplicaConnection) return connection.query<R>(text, parameters);
  return (await (await ormPool(em)).query(text, parameters)).rows as R[];
}

/**
 * The ORM's own `pg` pool (MikroORM's public `getNativeClient()`): for runShaped outside a transaction, the NOTIFY
 * sent after commits (kit/signals/signals.ts), and what is not a statement (LISTEN's own connection, the pool's gauges).
 */
export function ormPool(em: EntityManager): Promise<pg.Pool> {
  return (em.getConnection() as unknown as PostgreSqlConnection).getNativeClient() as unknown as Promise<pg.Pool>;
}

/**
 * `work` in one transaction, given an EntityManager whose transaction it is: the ORM, db(tx) and runShaped all run
 * in it. For writers of statements only (the order writer): no unit of work is flushed at commit, which is what makes
 * it lighter than em.transactional. Rolled back when `work` throws. Its end is told to the ORM's transaction
 * subscribers as the ORM's own transactions' is (what waits for the commit: kit/signals/signals.ts).
 */
export async function inTransaction<E extends EntityManager, T>(em: E, work: (tx: E) => Promise<T>): Promise<T> {
  let transaction: unknown;
  const ended = (event: EventType.afterTransactionCommit | EventType.afterTransactionRollback) =>
    em.getEventManager().dispatchEvent(event, { em, transaction: transaction as TransactionEventArgs['transaction'] });
  let result: T;
  try {
    result = await (em as unknown as SqlEntityManager)
      .getKysely()
      .transaction()
      .execute((trx) => {
        transaction = trx;
        const tx = em.fork() as E;
        tx.setTransactionContext(trx);
        return work(tx);
      });
  } catch (err) {
    if (transaction) await ended(EventType.afterTransactionRollback);
    throw err;
  }
  await ended(EventType.afterTransactionCommit);
  return result;
}
