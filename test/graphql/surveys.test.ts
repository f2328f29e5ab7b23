import type { TestServer } from '../helpers/server.js';
import { createTenant } from '../helpers/auth.js';
import { client, sleep, useTwoTenants, type Client } from '../helpers/graphql.js';

let server: TestServer, a: Client, b: Client, busA: string, busB: string;

useTwoTenants((t) => ({ server, a, b, busA, busB } = t));

const SURVEY = 'id object name description status createdAt updatedAt business { id }';
const create = (c: Client, bus: string, input: object) =>
  c.data(`mutation($b: ID!, $i: CreateSurveyInput!) { createSurvey(business: $b, input: $i) { ${SURVEY} } }`, { b: bus, i: input }).then((d) => d.createSurvey);
const list = (c: Client, bus: string, args: string, vars: object = {}) =>
  c
    .data(
      `query($b: ID! ${args ? ', ' + args.split('|')[0] : ''}) { surveys(business: $b ${args ? ', ' + args.split('|')[1] : ''}) { data { id name status createdAt } page pageSize total hasMore } }`,
      { b: bus, ...vars },
    )
    .then((d) => d.surveys);

describe('surveys', () => {
  const ids: string[] = [];
  beforeAll(async () => {
    for (const [i, status] of (['draft', 'active', 'active', 'archived', 'draft'] as const).entries()) {
      ids.push((await create(a, busA, { name: `Survey ${i} ${i === 2 ? 'Special%' : ''}`.trim(), status })).id);
      await sleep(3); // distinct createdAt for range filters
    }
  });

  it('creates and reads back, with object, business and ms timestamps', async () => {
    const created = await create(a, busA, { name: '  Lunch  ', description: 'noon' });
    expect(created).toEqual({
      id: expect.stringMatching(/^sur_[0-9A-Z]{26}$/),
      object: 'survey',
      name: 'Lunch',
      description: 'noon',
      status: 'draft',
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      business: { id: busA },
    });
    expect(Math.abs(created.createdAt - Date.now())).toBeLessThan(60_000);
    const read = await a.data(`query($b: ID!, $id: ID!) { survey(business: $b, id: $id) { ${SURVEY} } }`, { b: busA, id: created.id });
    expect(read.survey).toEqual(created);
    const events = await a
      .data(`query($b: ID!) { events(business: $b, where: {type: {eq: "survey.created"}}) { total data { data } } }`, { b: busA })
      .catch(() => null);
    if (events) expect(events.events.data.some((e: any) => e.data.object.id === created.id)).toBe(true);
    await a.data(`mutation($b: ID!, $id: ID!) { deleteSurvey(business: $b, id: $id) }`, { b: busA, id: created.id });
  });

  it('lists newest first with total and hasMore; pages from 0', async () => {
    const first = await list(a, busA, '$p: Int, $s: Int|page: $p, pageSize: $s', { p: 0, s: 2 });
    expect(first).toMatchObject({ page: 0, pageSize: 2, total: 5, hasMore: true });
    expect(first.data.map((s: any) => s.id)).toEqual([ids[4], ids[3]]);
    const last = await list(a, busA, '$p: Int, $s: Int|page: $p, pageSize: $s', { p: 2, s: 2 });
    expect(last).toMatchObject({ total: 5, hasMore: false });
    expect(last.data.map((s: any) => s.id)).toEqual([ids[0]]);
    const past = await list(a, busA, '$p: Int|page: $p', { p: 9 });
    expect(past).toMatchObject({ data: [], total: 5, hasMore: false });
    const exact = await list(a, busA, '$s: Int|pageSize: $s', { s: 5 });
    expect(exact).toMatchObject({ total: 5, hasMore: false });
    expect(exact.data).toHaveLength(5);
    const dflt = await list(a, busA, '');
    expect(dflt.pageSize).toBe(20);
  });

  it('refuses pageSize over 100, under 1, and a negative page', async () => {
    for (const [args, field] of [
      ['pageSize: 101', 'pageSize'],
      ['pageSize: 0', 'pageSize'],
      ['page: -1', 'page'],
    ]) {
      const err = await a.error(`query($b: ID!) { surveys(business: $b, ${args}) { total } }`, { b: busA });
      expect(err.code).toBe('BAD_USER_INPUT');
      expect(err.details).toEqual([{ field, message: expect.any(String) }]);
    }
    expect((await list(a, busA, '$s: Int|pageSize: $s', { s: 100 })).total).toBe(5);
  });

  it('filters with each operator', async () => {
    const all = (await list(a, busA, '$s: Int|pageSize: $s', { s: 100 })).data;
    const t = (id: string) => all.find((s: any) => s.id === id).createdAt;
    const where = async (w: object) =>
      (await list(a, busA, '$w: SurveyWhere|where: $w, orderBy: [{field: createdAt, order: asc}]', { w })).data.map((s: any) => s.id);
    expect(await where({ status: { eq: 'active' } })).toEqual([ids[1], ids[2]]);
    expect(await where({ status: { ne: 'draft' } })).toEqual([ids[1], ids[2], ids[3]]);
    expect(await where({ status: { in: ['archived', 'active'] } })).toEqual([ids[1], ids[2], ids[3]]);
    expect(await where({ name: { contains: 'special%' } })).toEqual([ids[2]]);
    expect(await where({ name: { contains: '%' } })).toEqual([ids[2]]); // LIKE wildcards are literal
    expect(await where({ createdAt: { gt: t(ids[2]) } })).toEqual([ids[3], ids[4]]);
    expect(await where({ createdAt: { gte: t(ids[2]) } })).toEqual([ids[2], ids[3], ids[4]]);
    expect(await where({ createdAt: { lt: t(ids[1]) } })).toEqual([ids[0]]);
    expect(await where({ createdAt: { lte: t(ids[1]) } })).toEqual([ids[0], ids[1]]);
    expect(await where({ createdAt: { eq: t(ids[3]) } })).toEqual([ids[3]]);
    expect(await where({ createdAt: { gte: t(ids[1]), lt: t(ids[3]) }, status: { eq: 'active' } })).toEqual([ids[1], ids[2]]);
    expect(await where({ id: { in: [ids[0], ids[4]] } })).toEqual([ids[0], ids[4]]);
    expect(await where({ name: { gte: 'Survey 3' } })).toEqual([ids[3], ids[4]]);
  });

  it('refuses an unknown filter field or operator (GraphQL validation)', async () => {
    const { status, body } = await a.raw(`query($b: ID!) { surveys(business: $b, where: {secret: {eq: "x"}}) { total } }`, { b: busA });
    expect(status).toBe(400);
    expect(body.errors[0].message).toMatch(/secret/);
    const op = await a.raw(`query($b: ID!) { surveys(business: $b, where: {name: {like: "x"}}) { total } }`, { b: busA });
    expect(op.body.errors[0].message).toMatch(/like/);
  });

  it('refuses a timestamp that is not an integer of milliseconds, as a variable or inline (400, never a 500)', async () => {
    const query = `query($b: ID!, $w: SurveyWhere) { surveys(business: $b, where: $w) { total } }`;
    for (const bad of ['yesterday', '2026-01-01', 1.5, 1e20]) {
      const { status, body } = await a.raw(query, { b: busA, w: { createdAt: { gte: bad } } });
      expect(status).toBe(400);
      expect(body.errors[0].extensions.code).toBe('BAD_USER_INPUT');
      expect(body.errors[0].message).toMatch(/milliseconds since the Unix epoch/);
    }
    const inline = await a.raw(`query($b: ID!) { surveys(business: $b, where: {createdAt: {gte: "yesterday"}}) { total } }`, { b: busA });
    expect(inline.status).toBe(400);
    expect(inline.body.errors[0].message).toMatch(/milliseconds since the Unix epoch/);
    const ok = await a.raw(query, { b: busA, w: { createdAt: { gte: 0 } } });
    expect(ok.body.data.surveys.total).toBe(5);
  });

  it('sorts by a whitelisted field, ties broken by id', async () => {
    const byStatus = await list(a, busA, '|orderBy: [{field: status, order: asc}]');
    const statuses = byStatus.data.map((s: any) => s.status);
    expect(statuses).toEqual([...statuses].sort());
    // Within one status, id in the direction of the last sort (asc here).
    const actives = byStatus.data.filter((s: any) => s.status === 'active').map((s: any) => s.id);
    expect(actives).toEqual([ids[1], ids[2]]);
    const byName = await list(a, busA, '|orderBy: [{field: name, order: desc}]');
    expect(byName.data.map((s: any) => s.name)).toEqual(
      byName.data
        .map((s: any) => s.name)
        .sort()
        .reverse(),
    );
    const bad = await a.raw(`query($b: ID!) { surveys(business: $b, orderBy: [{field: description}]) { total } }`, { b: busA });
    expect(bad.body.errors[0].message).toMatch(/description/);
  });

  it('updates any subset and records survey.updated', async () => {
    const created = await create(a, busA, { name: 'Before', description: 'keep' });
    await sleep(2);
    const { updateSurvey } = await a.data(`mutation($b: ID!, $id: ID!) { updateSurvey(business: $b, id: $id, input: {status: active}) { ${SURVEY} } }`, {
      b: busA,
      id: created.id,
    });
    expect(updateSurvey).toMatchObject({ name: 'Before', description: 'keep', status: 'active' });
    expect(updateSurvey.updatedAt).toBeGreaterThan(created.updatedAt);
    const rows = await server.orm.em.fork().getConnection().execute(`select type, data from event where business_id = ? order by id`, [busA]);
    expect(rows.filter((r: any) => r.data.object.id === created.id).map((r: any) => r.type)).toEqual(['survey.created', 'survey.updated']);
    expect(rows.find((r: any) => r.type === 'survey.updated' && r.data.object.id === created.id)!.data.object).toMatchObject({
      status: 'active',
      updatedAt: updateSurvey.updatedAt,
      object: 'survey',
    });
    await a.data(`mutation($b: ID!, $id: ID!) { deleteSurvey(business: $b, id: $id) }`, { b: busA, id: created.id });
  });

  it('validates input, naming every bad field', async () => {
    const err = await a.error(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "  ", description: "${'x'.repeat(10_001)}"}) { id } }`, {
      b: busA,
    });
    expect(err.code).toBe('BAD_USER_INPUT');
    expect(err.details!.map((d) => d.field).sort()).toEqual(['description', 'name']);
    const status = await a.raw(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "x", status: deleted}) { id } }`, { b: busA });
    expect(status.body.errors[0].message).toMatch(/deleted/);
  });

  it('deletes a survey with its steps; then NOT_FOUND; records survey.deleted', async () => {
    const s = await create(a, busA, { name: 'Doomed' });
    const { createSurveyStep } = await a.data(`mutation($b: ID!, $s: ID!) { createSurveyStep(business: $b, survey: $s, input: {type: text}) { id } }`, {
      b: busA,
      s: s.id,
    });
    expect((await a.data(`mutation($b: ID!, $id: ID!) { deleteSurvey(business: $b, id: $id) }`, { b: busA, id: s.id })).deleteSurvey).toBe(s.id);
    expect((await a.error(`query($b: ID!, $id: ID!) { survey(business: $b, id: $id) { id } }`, { b: busA, id: s.id })).code).toBe('NOT_FOUND');
    const steps = await server.orm.em.fork().getConnection().execute(`select id from survey_step where id = ?`, [createSurveyStep.id]);
    expect(steps).toEqual([]);
    const again = await a.error(`mutation($b: ID!, $id: ID!) { deleteSurvey(business: $b, id: $id) }`, { b: busA, id: s.id });
    expect(again.code).toBe('NOT_FOUND');
    const ev = await server.orm.em.fork().getConnection().execute(`select type from event where type = 'survey.deleted' and data->'object'->>'id' = ?`, [s.id]);
    expect(ev).toHaveLength(1);
  });

  it("answers NOT_FOUND for another business's survey and for malformed ids", async () => {
    const theirs = await create(b, busB, { name: 'Theirs' });
    for (const id of [theirs.id, 'mtr_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'nope']) {
      expect((await a.error(`query($b: ID!, $id: ID!) { survey(business: $b, id: $id) { id } }`, { b: busA, id })).code).toBe('NOT_FOUND');
      expect((await a.error(`mutation($b: ID!, $id: ID!) { updateSurvey(business: $b, id: $id, input: {name: "x"}) { id } }`, { b: busA, id })).code).toBe(
        'NOT_FOUND',
      );
      expect((await a.error(`mutation($b: ID!, $id: ID!) { deleteSurvey(business: $b, id: $id) }`, { b: busA, id })).code).toBe('NOT_FOUND');
    }
    expect((await list(b, busB, '')).data.map((s: any) => s.id)).toEqual([theirs.id]);
    // Using our token on their business is refused by the auth checker.
    expect((await a.error(`query($b: ID!) { surveys(business: $b) { total } }`, { b: busB })).code).toBe('FORBIDDEN');
    const read = await b.data(`query($b: ID!, $id: ID!) { survey(business: $b, id: $id) { name } }`, { b: busB, id: theirs.id });
    expect(read.survey.name).toBe('Theirs');
  });

  it('checks the scope of each operation', async () => {
    const readOnly = client(server, (await createTenant(server, { scopes: ['surveys:read'] })).headers);
    const tenant = await createTenant(server, { scopes: ['metrics:read'] });
    const none = client(server, tenant.headers);
    expect((await none.error(`query($b: ID!) { surveys(business: $b) { total } }`, { b: tenant.businessId })).code).toBe('FORBIDDEN');
    const ro = await readOnly.raw(`query { __typename }`);
    expect(ro.status).toBe(200);
  });
});
