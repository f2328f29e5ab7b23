import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemoryRecentWrites, SharedRecentWrites } from './read.routing.js';
import { replicaFault } from './replica.driver.js';
import { lsnOf } from './replica.health.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('the read-your-writes window', () => {
  it('holds a client that wrote for the window, in memory, and no other client', async () => {
    const recent = new MemoryRecentWrites();
    await recent.wrote('tok-a', 50);
    expect(await recent.wroteRecently('tok-a')).toBe(true);
    expect(await recent.wroteRecently('tok-b')).toBe(false);
    await sleep(100);
    expect(await recent.wroteRecently('tok-a')).toBe(false);
  });

  it('is shared by every process through Redis, and sends reads to the primary while Redis is away', async () => {
    const prefix = `test-${randomBytes(6).toString('hex')}:`;
    const [one, other] = [new Redis('redis://127.0.0.1:6379'), new Redis('redis://127.0.0.1:6379')];
    const away = new Redis('redis://127.0.0.1:1', { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true, retryStrategy: () => null });
    try {
      await new SharedRecentWrites(one, prefix).wrote('tok-a', 5_000);
      expect(await new SharedRecentWrites(other, prefix).wroteRecently('tok-a')).toBe(true);
      expect(await new SharedRecentWrites(other, prefix).wroteRecently('tok-b')).toBe(false);
      expect(await other.pttl(`${prefix}wrote:tok-a`)).toBeGreaterThan(0);
      expect(await new SharedRecentWrites(away, prefix).wroteRecently('tok-b')).toBe(true);
    } finally {
      await one.del(`${prefix}wrote:tok-a`);
      one.disconnect();
      other.disconnect();
      away.disconnect();
    }
  });
});

describe('a read failed by a replica', () => {
  it("goes to the primary when the replica is away or could not answer it, and not for the statement's own fault", () => {
    expect(replicaFault(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5433'), { code: 'ECONNREFUSED' }))).toBe('server');
    expect(replicaFault(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))).toBe('server');
    expect(replicaFault(new Error('Connection terminated unexpectedly'))).toBe('server');
    expect(replicaFault({ severity: 'FATAL', code: '57P01', message: 'terminating connection due to administrator command' })).toBe('server');
    expect(replicaFault({ severity: 'FATAL', code: '57P03', message: 'the database system is starting up' })).toBe('server');
    expect(replicaFault({ severity: 'ERROR', code: '40001', message: 'canceling statement due to conflict with recovery' })).toBe('statement');
    expect(replicaFault({ severity: 'ERROR', code: '25006', message: 'cannot execute INSERT in a read-only transaction' })).toBe('statement');
    expect(replicaFault({ severity: 'ERROR', code: '42P01', message: 'relation "nope" does not exist' })).toBe('none');
    expect(replicaFault({ severity: 'ERROR', code: '57014', message: 'canceling statement due to statement timeout' })).toBe('none');
  });
});

describe('WAL positions', () => {
  it('compare as numbers, not as text', () => {
    expect(lsnOf('16/B374D848')).toBe((0x16n << 32n) + 0xb374d848n);
    expect(lsnOf('A/0') > lsnOf('9/FFFFFFFF')).toBe(true);
    expect(lsnOf(null)).toBe(0n);
  });
});
