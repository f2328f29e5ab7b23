import type { TestServer } from '../helpers/server.js';
import { expectOthersNotFound, sleep, useTwoTenants, type Client } from '../helpers/graphql.js';

let server: TestServer, a: Client, b: Client, busA: string, busB: string;

useTwoTenants((t) => ({ server, a, b, busA, busB } = t));

const M = 'id object name description scale { min max } createdAt updatedAt business { id }';
const create = (input: object, c = a, bus = busA) =>
  c.data(`mutation($b: ID!, $i: CreateMetricInput!) { createMetric(business: $b, input: $i) { ${M} } }`, { b: bus, i: input }).then((d) => d.createMetric);
const list = (vars: object = {}) =>
  a
    .data(
      `query($b: ID!, $w: MetricWhere, $o: [MetricOrderBy!], $p: Int, $s: Int) { metrics(business: $b, where: $w, orderBy: $o, page: $p, pageSize: $s) { data { id name } page pageSize total hasMore } }`,
      { b: busA, ...vars },
    )
    .then((d) => d.metrics);

describe('metrics', () => {
  const ids: string[] = [];
  beforeAll(async () => {
    for (const name of ['Food', 'Service', 'Ambiance']) {
      ids.push((await create({ name })).id);
      await sleep(3);
    }
  });

  it('creates with the default 1..5 scale or a given one, and reads back', async () => {
    const m = await create({ name: 'NPS', description: 'd', scale: { min: 0, max: 10 } });
    expect(m).toEqual({
      id: expect.stringMatching(/^mtr_/),
      object: 'metric',
      name: 'NPS',
      description: 'd',
      scale: { min: 0, max: 10 },
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
      business: { id: busA },
    });
    const read = await a.data(`query($b: ID!, $id: ID!) { metric(business: $b, id: $id) { ${M} } }`, { b: busA, id: ids[0] });
    expect(read.metric.scale).toEqual({ min: 1, max: 5 });
    await a.data(`mutation($b: ID!, $id: ID!) { deleteMetric(business: $b, id: $id) }`, { b: busA, id: m.id });
  });

  it('lists, filters, sorts and pages', async () => {
    expect((await list()).data.map((m: any) => m.id)).toEqual([...ids].reverse());
    expect((await list({ o: [{ field: 'name', order: 'asc' }] })).data.map((m: any) => m.name)).toEqual(['Ambiance', 'Food', 'Service']);
    expect((await list({ w: { name: { contains: 'VIC' } } })).data.map((m: any) => m.name)).toEqual(['Service']);
    expect((await list({ w: { name: { ne: 'Food' } } })).total).toBe(2);
    expect((await list({ w: { id: { eq: ids[1] } } })).data.map((m: any) => m.id)).toEqual([ids[1]]);
    expect(await list({ s: 2, p: 1 })).toMatchObject({ page: 1, pageSize: 2, total: 3, hasMore: false, data: [{ id: ids[0] }] });
    expect((await a.error(`query($b: ID!) { metrics(business: $b, pageSize: 1000) { total } }`, { b: busA })).code).toBe('BAD_USER_INPUT');
  });

  it('updates and validates', async () => {
    const up = await a.data(`mutation($b: ID!, $id: ID!) { updateMetric(business: $b, id: $id, input: {scale: {min: 1, max: 10}}) { ${M} } }`, {
      b: busA,
      id: ids[2],
    });
    expect(up.updateMetric).toMatchObject({ name: 'Ambiance', scale: { min: 1, max: 10 } });
    for (const [input, field] of [
      ['{name: ""}', 'name'],
      ['{name: "x", scale: {min: 5, max: 5}}', 'scale'],
      ['{name: "x", scale: {min: -1, max: 5}}', 'scale'],
    ]) {
      const err = await a.error(`mutation($b: ID!) { createMetric(business: $b, input: ${input}) { id } }`, { b: busA });
      expect([err.code, err.details?.[0].field]).toEqual(['BAD_USER_INPUT', field]);
    }
  });

  it('refuses to delete a metric that a step rates: CONFLICT listing the steps', async () => {
    const survey = (await a.data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "S"}) { id } }`, { b: busA })).createSurvey.id;
    const step = (
      await a.data(
        `mutation($b: ID!, $s: ID!, $m: ID!) { createSurveyStep(business: $b, survey: $s, input: {type: metrics, metrics: {metrics: [$m]}}) { id } }`,
        { b: busA, s: survey, m: ids[0] },
      )
    ).createSurveyStep.id;
    const err = await a.error(`mutation($b: ID!, $id: ID!) { deleteMetric(business: $b, id: $id) }`, { b: busA, id: ids[0] });
    expect(err.code).toBe('CONFLICT');
    expect(err.message).toContain(step);
    expect(err.details).toEqual([{ field: 'steps', message: step }]);
    await a.data(`mutation($b: ID!, $s: ID!, $id: ID!) { deleteSurveyStep(business: $b, survey: $s, id: $id) }`, { b: busA, s: survey, id: step });
    expect((await a.data(`mutation($b: ID!, $id: ID!) { deleteMetric(business: $b, id: $id) }`, { b: busA, id: ids[0] })).deleteMetric).toBe(ids[0]);
    expect((await a.error(`query($b: ID!, $id: ID!) { metric(business: $b, id: $id) { id } }`, { b: busA, id: ids[0] })).code).toBe('NOT_FOUND');
    const ev = await server.orm.em.fork().getConnection().execute(`select type from event where data->'object'->>'id' = ? order by id`, [ids[0]]);
    expect(ev.map((e: any) => e.type)).toEqual(['metric.created', 'metric.deleted']);
  });

  it('a step racing the deletion of its metric: never both succeed', async () => {
    const survey = (await a.data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "Race"}) { id } }`, { b: busA })).createSurvey.id;
    for (let round = 0; round < 5; round++) {
      const m = (await create({ name: `Racer ${round}` })).id;
      const [step, del] = await Promise.all([
        a.raw(`mutation($b: ID!, $s: ID!, $m: ID!) { createSurveyStep(business: $b, survey: $s, input: {type: metrics, metrics: {metrics: [$m]}}) { id } }`, {
          b: busA,
          s: survey,
          m,
        }),
        a.raw(`mutation($b: ID!, $id: ID!) { deleteMetric(business: $b, id: $id) }`, { b: busA, id: m }),
      ]);
      const stepOk = !step.body.errors;
      const delOk = !del.body.errors;
      expect(stepOk !== delOk).toBe(true);
      if (stepOk) expect(del.body.errors[0].extensions.code).toBe('CONFLICT');
      else expect(step.body.errors[0].extensions.code).toBe('NOT_FOUND');
    }
  });

  it("treats another business's metric as NOT_FOUND", async () => {
    const theirs = await create({ name: 'Theirs' }, b, busB);
    await expectOthersNotFound(a, busA, theirs.id, 'metric');
    expect((await list()).data.some((m: any) => m.id === theirs.id)).toBe(false);
  });
});
