import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { CHANGE_KINDS, distributionReport, formatReport, type DistributionReport } from '../scripts/schema-distribution-report.js';

// `npm run schema:distribution-report` (docs/scaling.md): what distributing by business_id on Citus asks of the
// schema, read from the catalog of a migrated database. Checked against facts of today's schema, and against probe
// tables made here so each rule is seen to catch what it must. Every kind of finding is one a real Citus 13.2 cluster
// refused (issue 51); the figures of today's schema are held below, so a change that adds a problem fails here.
const ROOT = path.resolve(import.meta.dirname, '..');
let db: TestDatabase;
let report: DistributionReport;
let schemaAsMigrated: DistributionReport;

beforeAll(async () => {
  db = await createTestDatabase();
  schemaAsMigrated = await distributionReport(db.orm.em.fork());
  const sql = db.orm.em.getConnection();
  await sql.execute(`create table report_probe (id varchar(40) primary key, business_id varchar(40) not null references business (id), code text unique,
    scoped text, unique (business_id, scoped))`);
  await sql.execute(`create table report_probe_child (id varchar(40) primary key, probe_id varchar(40) references report_probe (id))`);
  // Triggers: one that NOTIFYs through a function it calls, one that writes another table, one that keeps to its row.
  await sql.execute(`create function report_probe_signal() returns void language plpgsql as $$ begin perform pg_notify('report_probe', ''); end $$`);
  await sql.execute(`create function report_probe_notify_fn() returns trigger language plpgsql as $$ begin perform report_probe_signal(); return null; end $$`);
  await sql.execute(`create trigger report_probe_notify after insert on report_probe for each row execute function report_probe_notify_fn()`);
  await sql.execute(`create table report_probe_tally (business_id varchar(40) not null references business (id), n int, primary key (business_id))`);
  await sql.execute(
    `create function report_probe_count_fn() returns trigger language plpgsql as $$ begin update report_probe_tally set n = n + 1 where business_id = new.business_id; return null; end $$`,
  );
  await sql.execute(`create trigger report_probe_count after insert on report_probe for each row execute function report_probe_count_fn()`);
  await sql.execute(`create function report_probe_own_fn() returns trigger language plpgsql as $$ begin new.scoped := lower(new.scoped); return new; end $$`);
  await sql.execute(`create trigger report_probe_own before insert on report_probe for each row execute function report_probe_own_fn()`);
  // Foreign-key actions: ON UPDATE CASCADE on business_id now, ON DELETE SET NULL once made (business_id, probe_id).
  await sql.execute(`create table report_probe_actions (business_id varchar(40) not null references business (id) on update cascade on delete cascade,
    probe_id varchar(40) references report_probe (id) on delete set null, primary key (business_id))`);
  // Partitions: one with a unique key of its own the parent lacks; a varchar business_id under a foreign key.
  await sql.execute(`create table report_probe_part (business_id varchar(40) not null references business (id), id varchar(40) not null,
    code text, primary key (business_id, id)) partition by range (id)`);
  await sql.execute(`create table report_probe_part_old partition of report_probe_part for values from (minvalue) to ('m')`);
  await sql.execute(`create unique index report_probe_part_old_code on report_probe_part_old (code)`);
  await sql.execute(
    `create table report_probe_part_plain (business_id varchar(40) not null, id varchar(40) not null, primary key (business_id, id)) partition by range (id)`,
  );
  // A NULL business, and reference tables that must be created in order.
  await sql.execute(`create table report_probe_nullable (id varchar(40) primary key, business_id varchar(40) references business (id))`);
  await sql.execute(`insert into report_probe_nullable (id, business_id) values ('n1', null), ('n2', null)`);
  await sql.execute(`create table report_probe_ref_b (id varchar(40) primary key, a_id varchar(40))`);
  await sql.execute(`create table report_probe_ref_a (id varchar(40) primary key)`);
  await sql.execute(`alter table report_probe_ref_b add foreign key (a_id) references report_probe_ref_a (id)`);
  await sql.execute(`alter table report_probe add column ref_b_id varchar(40) references report_probe_ref_b (id)`);
  report = await distributionReport(db.orm.em.fork());
});
afterAll(() => db?.drop());

const tables = (list: Array<{ table: string }>) => list.map((t) => t.table);

it('distributes every table with business_id, and business itself by its id', () => {
  expect(report.tenant).toEqual({ table: 'business', column: 'id' });
  expect(tables(report.distributed)).toEqual(expect.arrayContaining(['customer_order', 'order_item', 'submission', 'survey', 'survey_step', 'report_probe']));
  expect(tables(report.distributed)).not.toContain('app_user');
  expect(tables(report.distributed)).not.toContain('mikro_orm_migrations');
});

it('makes the shared tables without business_id reference tables, unless they point into tenant data', () => {
  expect(tables(report.reference)).toEqual(expect.arrayContaining(['app_user', 'oauth_signing_key']));
  expect(tables(report.reference)).not.toContain('report_probe_child');
  expect(report.needsColumn).toContainEqual({ table: 'report_probe_child', references: ['report_probe'] });
});

it('lists the primary and unique keys that lack business_id, and only those', () => {
  const names = report.keysMissingColumn.map((k) => k.name);
  expect(names).toEqual(expect.arrayContaining(['customer_order_pkey', 'credential_client_id_unique', 'report_probe_pkey', 'report_probe_code_key']));
  expect(report.keysMissingColumn.find((k) => k.name === 'credential_client_id_unique')).toMatchObject({
    table: 'credential',
    kind: 'unique',
    definition: 'UNIQUE (client_id)',
  });
  // These include it: (business_id, coalesce(external_location_id, ''), external_order_id), (user_id, business_id).
  expect(names).not.toContain('customer_order_external_unique');
  expect(names).not.toContain('membership_user_business_unique');
  expect(names).not.toContain('report_probe_business_id_scoped_key');
  // business is distributed by id: its primary key is its distribution column.
  expect(names).not.toContain('business_pkey');
});

it('lists the foreign keys that would join across shards', () => {
  const crossing = report.crossingForeignKeys.map((f) => f.name);
  expect(crossing).toEqual(expect.arrayContaining(['survey_step_survey_id_foreign', 'order_item_order_id_foreign', 'report_probe_child_probe_id_fkey']));
  // business_id -> business(id) keeps a row with its tenant.
  expect(crossing).not.toContain('survey_step_business_id_foreign');
  expect(crossing).not.toContain('report_probe_business_id_fkey');
});

it('names the tables each trigger function reaches, through the functions it calls', () => {
  const change = report.triggers.find((t) => t.trigger === 'analytics_submission_change');
  expect(change?.touches).toContain('analytics_rollup');
});

it('flags triggers that NOTIFY or reach other tables, through the functions they call, and not those keeping to their row', () => {
  const probe = (name: string) => report.triggers.find((t) => t.trigger === name);
  expect(probe('report_probe_notify')).toMatchObject({ notifies: true, touches: [] });
  expect(probe('report_probe_count')).toMatchObject({ notifies: false, touches: ['report_probe_tally'] });
  expect(probe('report_probe_own')).toMatchObject({ notifies: false, touches: [] });
  expect(report.changes.triggers).toContain('report_probe');
  // Today's schema: the event's audience reads webhook and event_subscriber; the submission's rollups write other tables.
  // The memos' NOTIFY triggers are gone (issue 51, item 4: told by the service after commit).
  expect(schemaAsMigrated.changes.triggers).toEqual(['event', 'submission']);
  expect(schemaAsMigrated.triggers.filter((t) => t.notifies)).toEqual([]);
  expect(formatReport(report)).toContain('report_probe.report_probe_own -> report_probe_own_fn() (its own row only)');
});

it('flags foreign-key actions that would change business_id: ON UPDATE CASCADE now, ON DELETE SET NULL once composite', () => {
  const actions = report.foreignKeyActions.filter((f) => f.table === 'report_probe_actions');
  expect(actions).toEqual([
    expect.objectContaining({ columns: ['business_id'], references: 'business', onUpdate: 'CASCADE', reason: expect.stringContaining('Citus refuses it') }),
    expect.objectContaining({
      columns: ['probe_id'],
      references: 'report_probe',
      onDelete: 'SET NULL',
      reason: expect.stringContaining('once (business_id, probe_id)'),
    }),
  ]);
  expect(schemaAsMigrated.foreignKeyActions.filter((f) => f.onUpdate === 'CASCADE').map((f) => f.table)).toEqual(['business_logo', 'theme_settings']);
});

it("flags a partition's own unique key and a partitioned table's foreign key on a varchar business_id", () => {
  expect(report.partitions).toContainEqual(
    expect.objectContaining({ table: 'report_probe_part', partition: 'report_probe_part_old', name: 'report_probe_part_old_code' }),
  );
  expect(report.partitions).toContainEqual(
    expect.objectContaining({ table: 'report_probe_part', partition: null, definition: 'business_id character varying(40)' }),
  );
  expect(report.partitions.map((p) => p.table)).not.toContain('report_probe_part_plain');
  expect(schemaAsMigrated.partitions.map((p) => p.partition ?? p.name)).toEqual([
    'webhook_delivery_legacy',
    'event_business_id_foreign',
    'webhook_delivery_business_id_foreign',
    'webhook_delivery_webhook_id_foreign',
  ]);
});

it('counts the rows whose business_id is NULL on a tenant table', () => {
  expect(report.nullBusiness).toContainEqual({ table: 'report_probe_nullable', nullRows: 2 });
  // The portal's built-in OAuth client belongs to no business.
  expect(schemaAsMigrated.nullBusiness).toEqual([{ table: 'credential', nullRows: 1 }]);
});

it('orders the reference tables, a referenced one first, and names the distributed tables pointing at each', () => {
  const order = report.referenceOrder.map((r) => r.table);
  expect(order.indexOf('report_probe_ref_a')).toBeLessThan(order.indexOf('report_probe_ref_b'));
  expect(report.referenceOrder.find((r) => r.table === 'report_probe_ref_b')).toEqual({
    table: 'report_probe_ref_b',
    after: ['report_probe_ref_a'],
    referencedBy: ['report_probe'],
  });
  expect(schemaAsMigrated.referenceOrder.find((r) => r.table === 'app_user')?.referencedBy).toEqual([
    'credential',
    'invitation',
    'membership',
    'oauth_authorization_code',
    'oauth_token',
  ]);
});

it('holds the figures of the schema the migrations make: a new problem fails here until the report and docs say it', () => {
  const figures = Object.fromEntries(CHANGE_KINDS.map((k) => [k, schemaAsMigrated.changes[k].length]));
  expect({ tablesToChange: schemaAsMigrated.tablesToChange.length, ...figures }).toEqual({
    // answer_theme (issue 52) points at its submission as answer_analysis does: by submission_id, until submission's key is (business_id, id).
    tablesToChange: 32,
    keys: 27,
    'foreign keys': 15,
    'foreign-key actions': 7,
    triggers: 2,
    partitions: 2,
    'NULL business_id': 1,
    'into tenant data': 1,
  });
});

it('is quoted by docs/scaling.md as it reads the schema the migrations make', () => {
  const summary = formatReport(schemaAsMigrated).split('\n')[0];
  const page = fs.readFileSync(path.join(ROOT, 'docs/scaling.md'), 'utf8');
  if (!page.includes(`\n${summary}\n`)) throw new Error(`docs/scaling.md should quote the report's first line as it is now:\n${summary}`);
});

it('says it in text for a person, and as JSON through the npm script', async () => {
  const text = formatReport(report);
  expect(text).toMatch(/^Citus, distributed by business_id: \d+ distributed tables/);
  expect(text).toContain('credential: ');
  expect(text).toContain('survey_step(survey_id) -> survey(id)');

  const script = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).scripts['schema:distribution-report'] as string;
  const [, ...args] = script.split(/\s+/); // "node <flags> <file>": run on this Node
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url };
  delete env.NODE_OPTIONS; // jest's VM-module flags are not the script's
  const output = await new Promise<string>((resolve, reject) =>
    execFile(process.execPath, [...args, '--json'], { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
  const printed = JSON.parse(output) as DistributionReport;
  expect(printed.keysMissingColumn).toEqual(report.keysMissingColumn);
  expect(printed.tablesToChange).toContain('report_probe');
});
