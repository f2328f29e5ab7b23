import { PostgreSqlConnection, PostgreSqlDriver } from '@mikro-orm/postgresql';
import type { Configuration, ConnectionType, CountOptions, EntityManager, EntityName, FindOptions, ObjectQuery } from '@mikro-orm/core';
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, Kysely, PostgresDialect, QueryResult, TransactionSettings } from 'kysely';
import { ReplicaHealth, type ReplicaHealthOptions } from './replica.health.js';
import { replicaFallbacks } from '../metrics/metrics.js';

/** The EntityManagers whose reads outside a transaction may go to a replica (see allowReplicaReads). */
const lagTolerant = new WeakSet<object>();

/**
 * Lets `em`'s reads outside a transaction run on a streaming replica: its ORM finds and counts, db(em) and runShaped.
 * Everything else stays on the primary, as MikroORM runs it with `preferReadReplicas: false`: writes, transactions
 * (their reads too) and every EntityManager not marked. Only the read routing (read.routing.ts) marks one.
 */
export function allowReplicaReads(em: EntityManager): void {
  lagTolerant.add(em);
}

export function readsOnReplicas(em: EntityManager): boolean {
  return lagTolerant.has(em);
}

type Fault = 'none' | 'statement' | 'server';

/**
 * Whether a read failed on a replica should run on the primary: `server` when the replica is away (no SQLSTATE: refused,
 * reset, timed out; classes 08 connection, 53 resources, 57 shutting down, 58 system), `statement` when the replica
 * is fine but could not answer this one (40001: a conflict with recovery; 25006: a write sent to a standby).
 */
export function replicaFault(err: unknown): Fault {
  const { code, severity } = (err ?? {}) as { code?: unknown; severity?: unknown };
  // The server's own errors carry a severity and a SQLSTATE; the rest are the connection's (ECONNREFUSED, EPIPE...).
  if (typeof severity !== 'string' || typeof code !== 'string') return 'server';
  if (code === '57014') return 'none'; // cancelled by its caller or a statement timeout: the primary would be no better
  if (['08', '53', '57', '58'].includes(code.slice(0, 2))) return 'server';
  return code === '40001' || code === '25006' ? 'statement' : 'none';
}

/** Where a replica's failed statements go: the primary, and who is told. */
interface Fallback {
  primary: PostgreSqlConnection;
  failed(err: unknown, fault: Fault): void;
}

/**
 * A replica's connection: MikroORM's own, whose Kysely (which the ORM's finds and `em.getKysely()` both run on) hands
 * a statement the replica fails to the primary's Kysely, so a replica that goes away between two health checks costs
 * a client nothing. Statements only: a replica never runs a transaction.
 */
export class ReplicaConnection extends PostgreSqlConnection {
  private fallback?: Fallback;

  attach(fallback: Fallback): void {
    this.fallback = fallback;
  }

  createKyselyDialect(overrides: Parameters<PostgreSqlConnection['createKyselyDialect']>[0]): PostgresDialect {
    const dialect = super.createKyselyDialect(overrides);
    // A Dialect in all but class: MikroORM only calls the Dialect interface's methods on it.
    return new FallbackDialect(dialect, (err, fault) => this.primaryFor(err, fault)) as unknown as PostgresDialect;
  }

  /** A statement on this replica's `pg` pool (runShaped's path), or on the primary's when the replica fails it. */
  async query<R>(text: string, values: unknown[]): Promise<R[]> {
    try {
      return (await (await this.getNativeClient()).query(text, values)).rows as R[];
    } catch (err) {
      const fault = replicaFault(err);
      if (fault === 'none' || !this.fallback) throw err;
      this.fallback.failed(err, fault);
      return (await (await this.fallback.primary.getNativeClient()).query(text, values)).rows as R[];
    }
  }

  private primaryFor(err: unknown, fault: Fault): Kysely<unknown> {
    if (!this.fallback) throw err;
    this.fallback.failed(err, fault);
    return this.fallback.primary.getClient();
  }
}

type Failover = (err: unknown, fault: Fault) => Kysely<unknown>;

class FallbackDialect implements Dialect {
  constructor(
    private readonly inner: Dialect,
    private readonly failover: Failover,
  ) {}

  createDriver(): Driver {
    return new FallbackDriver(this.inner.createDriver(), this.failover);
  }

  createQueryCompiler() {
    return this.inner.createQueryCompiler();
  }

  createAdapter() {
    return this.inner.createAdapter();
  }

  createIntrospector(db: Kysely<any>) {
    return this.inner.createIntrospector(db);
  }
}

/** A replica's connection whose failed statements run again on the primary (reads only: running one twice is harmless). */
class ReplicaStatements implements DatabaseConnection {
  constructor(
    readonly inner: DatabaseConnection,
    private readonly failover: Failover,
  ) {}

  async executeQuery<R>(query: CompiledQuery, options?: Parameters<DatabaseConnection['executeQuery']>[1]): Promise<QueryResult<R>> {
    try {
      return await this.inner.executeQuery<R>(query, options);
    } catch (err) {
      const fault = replicaFault(err);
      if (fault === 'none') throw err;
      return this.failover(err, fault).executeQuery<R>(query as CompiledQuery<R>, options);
    }
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number, options?: Parameters<DatabaseConnection['streamQuery']>[2]) {
    return this.inner.streamQuery<R>(query, chunkSize, options);
  }
}

/** Stands for a replica connection that could not be had: every statement runs on the primary. */
class OnPrimary implements DatabaseConnection {
  constructor(private readonly primary: Kysely<unknown>) {}

  executeQuery<R>(query: CompiledQuery, options?: Parameters<DatabaseConnection['executeQuery']>[1]): Promise<QueryResult<R>> {
    return this.primary.executeQuery<R>(query as CompiledQuery<R>, options);
  }

  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.primary.getExecutor().stream<R>(query as CompiledQuery<R>, chunkSize);
  }
}

class FallbackDriver implements Driver {
  constructor(
    private readonly inner: Driver,
    private readonly failover: Failover,
  ) {}

  init() {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    try {
      return new ReplicaStatements(await this.inner.acquireConnection(), this.failover);
    } catch (err) {
      const fault = replicaFault(err);
      if (fault === 'none') throw err;
      return new OnPrimary(this.failover(err, fault));
    }
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    return this.inner.beginTransaction(innerOf(connection), settings);
  }

  commitTransaction(connection: DatabaseConnection) {
    return this.inner.commitTransaction(innerOf(connection));
  }

  rollbackTransaction(connection: DatabaseConnection) {
    return this.inner.rollbackTransaction(innerOf(connection));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    if (connection instanceof ReplicaStatements) await this.inner.releaseConnection(connection.inner);
  }

  destroy() {
    return this.inner.destroy();
  }
}

function innerOf(connection: DatabaseConnection): DatabaseConnection {
  if (connection instanceof ReplicaStatements) return connection.inner;
  throw new Error('a replica connection runs no transaction');
}

export interface ReplicaDriverOptions extends Omit<ReplicaHealthOptions, 'maxLagMs'> {
  /** REPLICA_MAX_LAG. */
  maxLagMs?: number;
}

/** The driver of an ORM: the one whose EntityManagers are given here. */
export function replicaHealthOf(em: EntityManager): ReplicaHealth | undefined {
  return (em.getDriver() as Partial<{ replicaHealth: ReplicaHealth }>).replicaHealth;
}

/**
 * MikroORM's PostgreSQL driver with its `replicas` used as this service needs: `getConnection('read')` (what the ORM,
 * `em.getKysely({ type: 'read' })` and runShaped ask for) picks a replica that is up and within REPLICA_MAX_LAG
 * (replica.health.ts), or the primary when there is none, instead of any replica at random; and the finds and counts
 * of an EntityManager marked by allowReplicaReads ask for 'read'. Set as the configuration's `driver`
 * (src/db/orm.config.ts).
 */
export function replicaAwareDriver(options: ReplicaDriverOptions = {}) {
  return class ReplicaAwareDriver extends PostgreSqlDriver {
    readonly replicaHealth: ReplicaHealth;
    private readonly readers: ReplicaConnection[];

    constructor(config: Configuration) {
      super(config);
      // The parent made plain connections for `replicas`; they are replaced before anything opens them.
      this.readers = this.createReplicas((conf) => new ReplicaConnection(this.config, conf, 'read')) as ReplicaConnection[];
      (this as unknown as { replicas: ReplicaConnection[] }).replicas = this.readers;
      const primary = this.connection as PostgreSqlConnection;
      const names = (config.get('replicas') ?? []).map((conf, i) => conf.name ?? `replica-${i + 1}`);
      this.replicaHealth = new ReplicaHealth(
        () => primary.getNativeClient(),
        this.readers.map((reader, i) => ({ name: names[i], pool: () => reader.getNativeClient() })),
        { maxLagMs: 5_000, ...options },
      );
      this.readers.forEach((reader, i) =>
        reader.attach({
          primary,
          failed: (err, fault) => {
            replicaFallbacks.inc({ replica: names[i] });
            if (fault === 'server') this.replicaHealth.failed(i, err);
          },
        }),
      );
    }

    getConnection(type: ConnectionType = 'write'): PostgreSqlConnection {
      if (type !== 'read') return this.connection as PostgreSqlConnection;
      const index = this.replicaHealth.pick();
      return index === undefined ? (this.connection as PostgreSqlConnection) : this.readers[index];
    }

    find<T extends object, P extends string = never, F extends string = never, E extends string = never>(
      entityName: EntityName<T>,
      where: ObjectQuery<T>,
      options: FindOptions<T, P, F, E> = {},
    ) {
      return super.find(entityName, where, onReplica(options));
    }

    count<T extends object>(entityName: EntityName<T>, where: any, options: CountOptions<T> = {}) {
      return super.count(entityName, where, onReplica(options));
    }
  };
}

/** A find or count of a marked EntityManager, outside a transaction and without a lock, asks for a read connection. */
function onReplica<O extends { ctx?: unknown; connectionType?: ConnectionType; em?: EntityManager; lockMode?: unknown }>(options: O): O {
  if (options.ctx || options.connectionType || options.lockMode || !options.em || !lagTolerant.has(options.em)) return options;
  return { ...options, connectionType: 'read' };
}
