import { useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant } from '../helpers/auth.js';
import { purgeExpired, purgeOnce } from '../../src/modules/oauth/purge.service.js';
import { ormPool } from '../../src/kit/db/db.js';

let server: TestServer;
useTestServer((s) => (server = s));

const count = async (table: string, where = 'true') =>
  Number((await server.orm.em.fork().getConnection().execute(`select count(*) as n from ${table} where ${where}`))[0].n);

describe('purging expired OAuth rows', () => {
  it('deletes codes, tokens and throttles a day after they stopped mattering, and nothing still usable', async () => {
    const tenant = await createTenant(server); // one live token row
    const sql = server.orm.em.fork().getConnection();
    const token = (id: string, access: string, refresh: string | null) =>
      sql.execute(
        `insert into oauth_token (id, family, credential_id, business_id, user_id, scopes, access_expires_at, refresh_expires_at, created_at)
         values (?, ?, ?, ?, ?, '[]', now() + ?::interval, now() + ?::interval, now())`,
        [id, id, tenant.credentialId, tenant.businessId, tenant.userId, access, refresh],
      );
    await token('tk_gone', '-3 days', '-2 days'); // both expired long ago
    await token('tk_refreshable', '-3 days', '+20 days'); // the access token expired, the refresh token still works
    await token('tk_recent', '-2 hours', null); // expired, within the day of grace
    const code = (hash: string, expires: string) =>
      sql.execute(
        `insert into oauth_authorization_code (code_hash, credential_id, business_id, user_id, redirect_uri, scopes, expires_at, created_at)
         values (?, ?, ?, ?, 'http://localhost/cb', '[]', now() + ?::interval, now())`,
        [hash, tenant.credentialId, tenant.businessId, tenant.userId, expires],
      );
    await code('old', '-2 days');
    await code('fresh', '+4 minutes');
    await sql.execute(`insert into sign_in_throttle (key, failures, window_started_at) values
      ('email:old@example.com', 5, now() - interval '1 hour'),
      ('email-ip:127.0.0.2|current@example.com', 5, now() - interval '5 minutes')`);

    expect(await purgeExpired(server.orm.em.fork())).toEqual({ codes: 1, tokens: 1, throttles: 1 });
    expect(await count('oauth_token', `id = 'tk_gone'`)).toBe(0);
    expect(await count('oauth_token', `id in ('tk_refreshable', 'tk_recent')`)).toBe(2);
    expect(await count('oauth_authorization_code')).toBe(1);
    expect(await count('sign_in_throttle')).toBe(1);
    // The tenant's live token still works.
    const { body } = await server.graphql(`{ business(id: "${tenant.businessId}") { id } }`, {}, tenant.headers);
    expect(body.data.business.id).toBe(tenant.businessId);
  });
});

describe('the purge across processes', () => {
  it('is run by one process at a time: a process that finds another purging skips its turn', async () => {
    const pool = await ormPool(server.orm.em);
    const other = await pool.connect(); // another process's session, holding the purge lock
    try {
      await other.query('select pg_advisory_lock(73420114)');
      expect(await purgeOnce(server.orm.em.fork())).toBeUndefined();
      await other.query('select pg_advisory_unlock(73420114)');
      expect(await purgeOnce(server.orm.em.fork())).toEqual({ codes: expect.any(Number), tokens: expect.any(Number), throttles: expect.any(Number) });
    } finally {
      other.release();
    }
  });
});
