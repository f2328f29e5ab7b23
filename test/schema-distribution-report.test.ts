import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';
import { distributionReport, formatReport, type DistributionReport } from '../scripts/schema-distribution-report.js';

// `npm run schema:distribution-report` (docs/scaling.md): what distributing by business_id on Citus asks of the
// schema, read from the catalog of a migrated database. Checked against facts of today's schema, and against probe
// tables made here so each rule is seen to catch what it must.
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
  expect(report.keysMissingColumn.find((k) => k.name === 'credential_client_id_unique')).toMatchObject({ table: 'credential', kind: 'unique', definition: 'UNIQUE (client_id)' });
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
    execFile(process.execPath, [...args, '--json'], { cwd: ROOT, env, timeout: 60_000 }, (err, stdout, stderr) => (err ? reject(new Error(`${err.message}\n${stderr}`)) : resolve(stdout))),
  );
  const printed = JSON.parse(output) as DistributionReport;
  expect(printed.keysMissingColumn).toEqual(report.keysMissingColumn);
  expect(printed.tablesToChange).toContain('report_probe');
});
