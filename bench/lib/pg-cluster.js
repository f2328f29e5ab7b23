// A throwaway PostgreSQL primary and one streaming replica made with `pg_basebackup -R`, both on 127.0.0.1, under
// /tmp, from the machine's PostgreSQL binaries (PG_BIN, default the Debian packages' /usr/lib/postgresql/15/bin).
// pg_stat_statements is loaded on both, so a bench can tell which statements ran where. Loopback only; `stop()` is
// synchronous, so it also runs from a process 'exit' handler.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, postgresCpu, sleep } from './service.js';

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** As root, PostgreSQL's tools refuse to run: they run as the `postgres` account then. */
function owner() {
  if (process.getuid?.() !== 0) return {};
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Starts the primary (database `database` created, pg_stat_statements installed), then the replica from a base
 * backup of it, and waits until the replica is in recovery and accepting reads.
 */
export async function startPrimaryAndReplica({ name = 'bench', database = 'app', maxConnections = 200 } = {}) {
  const user = owner();
  const base = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${name}-pg-`));
  fs.chmodSync(base, 0o755);
  if (user.uid !== undefined) fs.chownSync(base, user.uid, user.gid);
  const run = (tool, args) => execFileSync(path.join(PG_BIN, tool), args, { ...user, cwd: base, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const dirs = { primary: path.join(base, 'primary'), replica: path.join(base, 'replica') };
  const ports = { primary: await freePort(), replica: await freePort() };
  const started = [];
  const stop = () => {
    for (const which of started.splice(0).reverse()) {
      try {
        run('pg_ctl', ['-D', dirs[which], '-m', 'immediate', '-w', 'stop']);
      } catch {
        /* already stopped */
      }
    }
    fs.rmSync(base, { recursive: true, force: true });
  };
  const start = (which) => {
    started.push(which);
    run('pg_ctl', ['-D', dirs[which], '-l', path.join(base, `${which}.log`), '-w', '-t', '120', '-o', `-p ${ports[which]}`, 'start']);
  };
  try {
    run('initdb', ['-D', dirs.primary, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-instructions']);
    // Production-like durability (fsync and synchronous commit stay on): the bench measures what a deployment pays.
    fs.appendFileSync(
      path.join(dirs.primary, 'postgresql.conf'),
      [
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${base}'`,
        `max_connections = ${maxConnections}`,
        "shared_preload_libraries = 'pg_stat_statements'",
        'pg_stat_statements.track = top',
        'wal_level = replica',
        'hot_standby = on',
        'max_wal_senders = 5',
        '',
      ].join('\n'),
    );
    start('primary');
    const url = (which, db = database) => `postgresql://postgres@127.0.0.1:${ports[which]}/${db}`;
    const admin = new pg.Client(url('primary', 'postgres'));
    await admin.connect();
    await admin.query(`create database ${database}`);
    await admin.end();
    const app = new pg.Client(url('primary'));
    await app.connect();
    await app.query('create extension pg_stat_statements');
    await app.end();
    // -R writes standby.signal and primary_conninfo: the replica streams from the primary from its first start.
    run('pg_basebackup', ['-h', '127.0.0.1', '-p', String(ports.primary), '-U', 'postgres', '-D', dirs.replica, '-R', '-X', 'stream', '-c', 'fast']);
    start('replica');
    for (let i = 0; ; i++) {
      try {
        const c = new pg.Client(url('replica'));
        await c.connect();
        const { rows } = await c.query('select pg_is_in_recovery() as recovering');
        await c.end();
        if (rows[0].recovering) break;
        throw new Error('the replica is not in recovery');
      } catch (err) {
        if (i > 200) throw err;
        await sleep(100);
      }
    }
    const postmaster = (which) => {
      try {
        return Number(fs.readFileSync(path.join(dirs[which], 'postmaster.pid'), 'utf8').split('\n')[0]);
      } catch {
        return undefined;
      }
    };
    return {
      primaryUrl: url('primary'),
      replicaUrl: url('replica'),
      dataDir: base,
      /** CPU seconds used so far by each server: postmaster, live backends and exited ones (WAL sender and replay included). */
      cpu() {
        const of = (which) => (postmaster(which) ? postgresCpu(postmaster(which)) : 0);
        return { primary: of('primary'), replica: of('replica') };
      },
      stop,
    };
  } catch (err) {
    const logs = ['primary', 'replica']
      .map((which) => path.join(base, `${which}.log`))
      .filter((f) => fs.existsSync(f))
      .map((f) => `${f}:\n${fs.readFileSync(f, 'utf8').slice(-2000)}`);
    stop();
    if (err.stderr) err.message += `\n${err.stderr}`;
    if (logs.length) err.message += `\n${logs.join('\n')}`;
    throw err;
  }
}
