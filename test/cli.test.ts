import fs from 'node:fs';
import { jest } from '@jest/globals';
import pg from 'pg';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { postgresProcessesFor, runAdmin, startService, tempDataDir, waitForReady } from './helpers/process.js';
import { freePort } from './helpers/ports.js';

jest.setTimeout(120_000);

let db: TestDatabase;
let sql: pg.Client;
const admin = (...args: string[]) => runAdmin(args, { DATABASE_URL: db.url });
const parse = (stdout: string) => JSON.parse(stdout);

beforeAll(async () => {
  db = await createTestDatabase();
  sql = new pg.Client(db.url);
  await sql.connect();
});
afterAll(async () => {
  await sql?.end();
  await db?.drop();
});

describe('admin CLI on DATABASE_URL', () => {
  let userId: string;
  let businessId: string;

  it('create-user stores a lower-cased e-mail and a scrypt hash, never the password', async () => {
    const { code, stdout } = await admin('create-user', '--email', ' Owner@Example.COM ', '--password', 'correct horse', '--name', 'Ada');
    expect(code).toBe(0);
    const out = parse(stdout);
    expect(out).toEqual({
      object: 'user',
      data: {
        id: expect.stringMatching(/^user_[0-9A-Z]{26}$/),
        object: 'user',
        email: 'owner@example.com',
        name: 'Ada',
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      },
    });
    expect(stdout).not.toContain('correct horse');
    userId = out.data.id;
    const { rows } = await sql.query('select email, password_hash from app_user where id = $1', [userId]);
    expect(rows[0].email).toBe('owner@example.com');
    expect(rows[0].password_hash).toMatch(/^scrypt\$32768\$8\$1\$/);
  });

  it('create-user refuses a duplicate e-mail whatever its case (exit 2)', async () => {
    const { code, stderr, stdout } = await admin('create-user', '--email', 'OWNER@example.com', '--password', 'another one');
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/already exists/);
  });

  it('create-business makes the user its owner', async () => {
    const { code, stdout } = await admin('create-business', '--name', 'Cafe Uno', '--owner', userId, '--country', 'pk');
    expect(code).toBe(0);
    const out = parse(stdout);
    expect(out.data).toMatchObject({ object: 'business', name: 'Cafe Uno', country: 'PK', owner: userId });
    businessId = out.data.id;
    const { rows } = await sql.query('select role from membership where user_id = $1 and business_id = $2', [userId, businessId]);
    expect(rows).toEqual([{ role: 'owner' }]);
  });

  it('create-credential prints the client secret once and stores only its hash', async () => {
    const { code, stdout } = await admin(
      'create-credential',
      '--business',
      businessId,
      '--name',
      'POS app',
      '--redirect-uri',
      'https://pos.example.com/callback',
      '--redirect-uri',
      'http://localhost:3000/cb',
    );
    expect(code).toBe(0);
    const { data } = parse(stdout);
    expect(data).toMatchObject({
      object: 'credential',
      business: businessId,
      clientId: expect.stringMatching(/^[0-9a-f]{32}$/),
      clientSecret: expect.stringMatching(/^cs_/),
      validRedirectUris: ['https://pos.example.com/callback', 'http://localhost:3000/cb'],
      createdBy: userId,
    });
    const { rows } = await sql.query('select secret_hash from credential where id = $1', [data.id]);
    expect(rows[0].secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(data.clientSecret);
    const events = await sql.query(`select type, data from event where business_id = $1 and type = 'credential.created'`, [businessId]);
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0].data.object).toMatchObject({ id: data.id, object: 'credential', createdAt: data.createdAt });
    expect(JSON.stringify(events.rows[0].data)).not.toContain(data.clientSecret);
  });

  it('connect-custom prints a secret, and running it again rotates it', async () => {
    const first = await admin('connect-custom', '--business', businessId);
    expect(first.code).toBe(0);
    const one = parse(first.stdout).data;
    expect(one).toMatchObject({
      business: businessId,
      secret: expect.stringMatching(/^cisec_/),
      rotated: false,
      webhookPath: `/webhooks/custom/${businessId}`,
    });
    const hashBefore = (await sql.query('select secret_hash from custom_integration where business_id = $1', [businessId])).rows[0].secret_hash;

    const second = await admin('connect-custom', '--business', businessId);
    const two = parse(second.stdout).data;
    expect(two.rotated).toBe(true);
    expect(two.secret).not.toBe(one.secret);
    const rows = (await sql.query('select secret_hash, rotated_at from custom_integration where business_id = $1', [businessId])).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0].secret_hash).not.toBe(hashBefore);
    expect(rows[0].rotated_at).not.toBeNull();
  });

  it('demo creates a complete, usable set and prints it', async () => {
    const { code, stdout } = await admin('demo');
    expect(code).toBe(0);
    const out = parse(stdout);
    expect(out.user.password).toEqual(expect.any(String));
    expect(out.survey.metrics).toHaveLength(3);
    expect(out.credential.clientSecret).toMatch(/^cs_/);
    expect(out.customIntegration.secret).toMatch(/^cisec_/);
    // The business's face (issue 36): a display name, a brand colour white text reads on, a logo served by the service.
    expect(out.business).toMatchObject({
      displayName: 'Demo Bistro · Karahi & Grill',
      brandColor: '#14532D',
      logoUrl: expect.stringMatching(/\/logos\/bus_\w+\/[0-9a-f]{64}\.png$/),
    });
    const logo = await sql.query('select content_type, width, height from business_logo where business_id = $1', [out.business.id]);
    expect(logo.rows).toEqual([{ content_type: 'image/png', width: 128, height: 128 }]);
    // Stored on the business too, not only printed: the logo's file is the one its address names.
    const face = await sql.query('select display_name, brand_color, logo_file from business where id = $1', [out.business.id]);
    expect(face.rows).toEqual([{ display_name: 'Demo Bistro · Karahi & Grill', brand_color: '#14532D', logo_file: out.business.logoUrl.split('/').pop() }]);
    const steps = await sql.query('select type, metric_ids, content, position from survey_step where survey_id = $1 order by position', [out.survey.id]);
    expect(steps.rows[0]).toEqual(expect.objectContaining({ type: 'metrics', metric_ids: out.survey.metrics.map((m: { id: string }) => m.id), position: 0 }));
    // Its survey rates the dishes of the order (issue 36): metrics, then the items step on a 1-5 scale, then a comment.
    expect(steps.rows.map((r) => r.type)).toEqual(['metrics', 'items', 'text']);
    expect(steps.rows[1].content).toEqual(expect.objectContaining({ scale: '5' }));
    const members = await sql.query('select role from membership where user_id = $1 and business_id = $2', [out.user.id, out.business.id]);
    expect(members.rows).toEqual([{ role: 'owner' }]);
    // Made through the services, as the API would: each change recorded as an event.
    const events = await sql.query('select type from event where business_id = $1 order by id', [out.business.id]);
    expect(events.rows.map((r) => r.type)).toEqual([
      'metric.created',
      'metric.created',
      'metric.created',
      'survey.created',
      'surveystep.created',
      'surveystep.created',
      'surveystep.created',
      'location.created',
      'credential.created',
    ]);
  });

  it('demo builds its links from PUBLIC_URL, else PORT, as the service does', async () => {
    const links = (out: { customIntegration: { webhookUrl: string }; surveyLink: string; business: { id: string } }) => [
      out.customIntegration.webhookUrl,
      out.surveyLink,
    ];
    const onPort = parse((await runAdmin(['demo'], { DATABASE_URL: db.url, PORT: '5123' })).stdout);
    expect(links(onPort)).toEqual([
      `http://localhost:5123/webhooks/custom/${onPort.business.id}`,
      expect.stringMatching(new RegExp(`^http://localhost:5123/survey/${onPort.business.id}/sur_`)),
    ]);
    const behindProxy = parse(
      (await runAdmin(['demo'], { DATABASE_URL: db.url, PORT: '5123', PUBLIC_URL: 'https://feedback.example.com/', SURVEY_URL: 'https://s.example.com' }))
        .stdout,
    );
    expect(links(behindProxy)).toEqual([
      `https://feedback.example.com/webhooks/custom/${behindProxy.business.id}`,
      expect.stringMatching(new RegExp(`^https://s\\.example\\.com/survey/${behindProxy.business.id}/sur_`)),
    ]);
  });

  it('add-member adds an existing user by e-mail with a role; remove-member removes them, never the last owner', async () => {
    const staff = parse((await admin('create-user', '--email', 'staff@example.com', '--password', 'long enough', '--name', 'Sam')).stdout).data;
    const added = await admin('add-member', '--business', businessId, '--email', 'Staff@Example.com', '--role', 'staff');
    expect(added.code).toBe(0);
    const member = parse(added.stdout);
    expect(member).toEqual({
      object: 'member',
      data: expect.objectContaining({
        id: expect.stringMatching(/^mem_/),
        object: 'member',
        user: staff.id,
        email: 'staff@example.com',
        name: 'Sam',
        role: 'staff',
        business: businessId,
      }),
    });
    const lastOwner = await admin('remove-member', '--business', businessId, '--email', 'owner@example.com');
    expect(lastOwner.code).toBe(2);
    expect(lastOwner.stderr).toMatch(/last owner/);
    expect((await admin('add-member', '--business', businessId, '--email', 'staff@example.com', '--role', 'admin')).stderr).toMatch(
      /--role must be one of owner, manager, staff/,
    );
    const removed = await admin('remove-member', '--business', businessId, '--member', member.data.id);
    expect([removed.code, parse(removed.stdout)]).toEqual([0, { id: member.data.id, object: 'member', deleted: true }]);
    const rows = await sql.query('select role from membership where business_id = $1', [businessId]);
    expect(rows.rows).toEqual([{ role: 'owner' }]);
    const events = await sql.query(`select type from event where business_id = $1 and type like 'member.%' order by id`, [businessId]);
    expect(events.rows.map((r) => r.type)).toEqual(['member.created', 'member.deleted']);
  });

  it.each([
    [['frobnicate'], /Unknown command "frobnicate"/],
    [[], /Usage: npm run admin/],
    [['create-user', '--email', 'x@example.com'], /--password is required/],
    [['create-user', '--email', 'x@example.com', '--password', 'long enough', '--admin'], /Unknown option '--admin'/],
    [['create-user', '--email', 'not-an-email', '--password', 'long enough'], /email: 'not-an-email' is not an e-mail address/],
    [['create-user', '--email', 'y@example.com', '--password', 'short'], /password: must be at least 8 characters/],
    [['create-business', '--name', 'X', '--owner', 'user_01ARZ3NDEKTSV4RRFFQ69G5FAV'], /User 'user_01ARZ3NDEKTSV4RRFFQ69G5FAV' was not found/],
    [['create-business', '--name', 'X', '--owner', 'bogus'], /User 'bogus' was not found/],
    [
      ['create-credential', '--business', 'bus_01ARZ3NDEKTSV4RRFFQ69G5FAV', '--name', 'X', '--redirect-uri', 'https://a.example'],
      /Business 'bus_01ARZ3NDEKTSV4RRFFQ69G5FAV' was not found/,
    ],
    [['connect-custom'], /--business is required/],
  ])('exits with 2 and a message on bad arguments: %j', async (args, message) => {
    const { code, stdout, stderr } = await admin(...args);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
  });

  it('create-credential refuses a redirect URI that is not https (exit 2) and stores nothing', async () => {
    const before = (await sql.query('select count(*)::int as n from credential')).rows[0].n;
    const { code, stderr } = await admin('create-credential', '--business', businessId, '--name', 'X', '--redirect-uri', 'http://evil.example/cb');
    expect(code).toBe(2);
    expect(stderr).toMatch(/validRedirectUris\[0\]: must use https/);
    expect((await sql.query('select count(*)::int as n from credential')).rows[0].n).toBe(before);
  });
});

describe('admin CLI on the embedded database', () => {
  const dataDir = tempDataDir();
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('starts and stops its own PostgreSQL when no server runs', async () => {
    const { code, stdout } = await runAdmin(['create-user', '--email', 'solo@example.com', '--password', 'long enough'], {
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(await freePort()),
    });
    expect(code).toBe(0);
    expect(parse(stdout).data.email).toBe('solo@example.com');
    expect(postgresProcessesFor(dataDir)).toEqual([]);
  });

  it('reuses the PostgreSQL of a running server (no second one on the same data dir)', async () => {
    const service = startService({ DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) });
    try {
      await waitForReady(service);
      const before = postgresProcessesFor(dataDir);
      // A different EMBEDDED_PG_PORT on purpose: the CLI must find the running cluster, not start another.
      const { code, stdout } = await runAdmin(['create-user', '--email', 'beside@example.com', '--password', 'long enough'], {
        DATA_DIR: dataDir,
        EMBEDDED_PG_PORT: String(await freePort()),
      });
      expect(code).toBe(0);
      expect(parse(stdout).data.email).toBe('beside@example.com');
      expect(postgresProcessesFor(dataDir)).toEqual(before); // same processes, still running
      await waitForReady(service);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    expect(postgresProcessesFor(dataDir)).toEqual([]);
  });

  it("prints links to the running server's address, not its own default port, unless told one", async () => {
    const port = await freePort();
    const service = startService({ DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()) });
    try {
      await waitForReady(service);
      // Another terminal: no PORT, no PUBLIC_URL.
      const beside = await runAdmin(['demo'], { DATA_DIR: dataDir });
      expect(beside.code).toBe(0);
      const demo = parse(beside.stdout);
      expect(demo.customIntegration.webhookUrl).toBe(`http://localhost:${port}/webhooks/custom/${demo.business.id}`);
      expect(demo.surveyLink).toMatch(new RegExp(`^http://localhost:${port}/survey/${demo.business.id}/`));
      // The link works: the server answers it (on 127.0.0.1, the address the tests reach it at).
      const survey = await fetch(`${service.url}${new URL(demo.surveyLink).pathname}`);
      expect(survey.status).toBe(200);

      // Told where the service is (behind a proxy, say): that address.
      const told = parse((await runAdmin(['demo'], { DATA_DIR: dataDir, PUBLIC_URL: 'https://feedback.example.com' })).stdout);
      expect(told.customIntegration.webhookUrl).toBe(`https://feedback.example.com/webhooks/custom/${told.business.id}`);
    } finally {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    // Once the server has stopped, its address is forgotten: the CLI on its own uses its own configuration.
    expect(fs.readdirSync(dataDir)).not.toContain('running-service.json');
    const alone = parse((await runAdmin(['demo'], { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) })).stdout);
    expect(alone.customIntegration.webhookUrl).toBe(`http://localhost:4000/webhooks/custom/${alone.business.id}`);
    expect(postgresProcessesFor(dataDir)).toEqual([]);
  });
});
