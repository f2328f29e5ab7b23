import type { TestServer } from '../helpers/server.js';
import { useTwoTenants, type Client } from '../helpers/graphql.js';

let server: TestServer, a: Client, b: Client, busA: string, busB: string;
let survey: string;
let metricIds: string[];
let theirMetric: string;

const STEP =
  'id object position type required content inputType validation logic createdAt updatedAt survey { id } business { id } metrics { metrics { id name } }';

useTwoTenants((t) => ({ server, a, b, busA, busB } = t));
beforeAll(async () => {
  survey = (await a.data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "S"}) { id } }`, { b: busA })).createSurvey.id;
  metricIds = [];
  for (const name of ['Food', 'Service']) {
    metricIds.push(
      (await a.data(`mutation($b: ID!, $n: String!) { createMetric(business: $b, input: {name: $n}) { id } }`, { b: busA, n: name })).createMetric.id,
    );
  }
  theirMetric = (await b.data(`mutation($b: ID!) { createMetric(business: $b, input: {name: "X"}) { id } }`, { b: busB })).createMetric.id;
});

const createStep = (input: object, c = a, bus = busA, s = survey) =>
  c
    .data(`mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { ${STEP} } }`, {
      b: bus,
      s,
      i: input,
    })
    .then((d) => d.createSurveyStep);
const createErr = (input: object, c = a, bus = busA, s = survey) =>
  c.error(`mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { id } }`, { b: bus, s, i: input });
const order = async () =>
  (await a.data(`query($b: ID!, $s: ID!) { surveySteps(business: $b, survey: $s, pageSize: 100) { data { id position } total } }`, { b: busA, s: survey }))
    .surveySteps.data;
const update = (id: string, input: object) =>
  a
    .data(`mutation($b: ID!, $s: ID!, $id: ID!, $i: UpdateSurveyStepInput!) { updateSurveyStep(business: $b, survey: $s, id: $id, input: $i) { ${STEP} } }`, {
      b: busA,
      s: survey,
      id,
      i: input,
    })
    .then((d) => d.updateSurveyStep);
const del = (id: string) => a.data(`mutation($b: ID!, $s: ID!, $id: ID!) { deleteSurveyStep(business: $b, survey: $s, id: $id) }`, { b: busA, s: survey, id });

describe('survey steps', () => {
  const ids: Record<string, string> = {};

  it('creates at the end by default, with its metrics as objects', async () => {
    const m = await createStep({ type: 'metrics', required: true, content: { title: 'Rate us' }, metrics: { metrics: [metricIds[1], metricIds[0]] } });
    expect(m).toMatchObject({
      object: 'surveystep',
      position: 0,
      type: 'metrics',
      required: true,
      content: { title: 'Rate us' },
      survey: { id: survey },
      business: { id: busA },
      metrics: {
        metrics: [
          { id: metricIds[1], name: 'Service' },
          { id: metricIds[0], name: 'Food' },
        ],
      },
    });
    expect(m.id).toMatch(/^step_/);
    ids.m = m.id;
    ids.t = (await createStep({ type: 'text', validation: { maxLength: 20 }, inputType: 'textarea' })).id;
    ids.c = (await createStep({ type: 'choice', content: { choices: ['a', 'b'] } })).id;
    const text = await a.data(`query($b: ID!, $s: ID!, $id: ID!) { surveyStep(business: $b, survey: $s, id: $id) { ${STEP} } }`, {
      b: busA,
      s: survey,
      id: ids.t,
    });
    expect(text.surveyStep).toMatchObject({ position: 1, metrics: null, validation: { maxLength: 20 }, inputType: 'textarea' });
    expect((await order()).map((s: any) => s.id)).toEqual([ids.m, ids.t, ids.c]);
  });

  it("shows the metrics of a step in every answer that holds steps: one step, a list, a survey, a page of surveys, a step's survey, a mutation, through fragments", async () => {
    const rated = [
      { id: metricIds[1], name: 'Service' },
      { id: metricIds[0], name: 'Food' },
    ];
    const one = await a.data(`query($b: ID!, $s: ID!, $id: ID!) { surveyStep(business: $b, survey: $s, id: $id) { metrics { metrics { id name } } } }`, {
      b: busA,
      s: survey,
      id: ids.m,
    });
    expect(one.surveyStep.metrics).toEqual({ metrics: rated });
    const list = await a.data(
      `query($b: ID!, $s: ID!) { surveySteps(business: $b, survey: $s) { data { id ...M } } } fragment M on SurveyStep { metrics { metrics { id name } } }`,
      { b: busA, s: survey },
    );
    expect(list.surveySteps.data.map((s: any) => s.metrics)).toEqual([{ metrics: rated }, null, null]);
    const nested = await a.data(`query($b: ID!, $s: ID!) { survey(business: $b, id: $s) { steps { metrics { metrics { id name } } } } }`, {
      b: busA,
      s: survey,
    });
    expect(nested.survey.steps.map((s: any) => s.metrics)).toEqual([{ metrics: rated }, null, null]);
    // A page fills its surveys' steps at once; another survey's field resolves them where it is asked.
    const page = await a.data(
      `query($b: ID!) { surveys(business: $b) { data { id ...S } } } fragment S on Survey { steps { id ... on SurveyStep { metrics { metrics { id name } } } } }`,
      { b: busA },
    );
    expect(page.surveys.data.find((x: any) => x.id === survey).steps.map((s: any) => s.metrics)).toEqual([{ metrics: rated }, null, null]);
    const viaStep = await a.data(
      `query($b: ID!, $s: ID!, $id: ID!) { surveyStep(business: $b, survey: $s, id: $id) { survey { steps { id metrics { metrics { name } } } } } }`,
      {
        b: busA,
        s: survey,
        id: ids.m,
      },
    );
    expect(viaStep.surveyStep.survey.steps.map((s: any) => s.metrics)).toEqual([{ metrics: [{ name: 'Service' }, { name: 'Food' }] }, null, null]);
    // Two aliases of steps selecting different fields, on a page and on a survey reached through a step.
    const aliased = await a.data(
      `query($b: ID!, $s: ID!, $id: ID!) {
        surveys(business: $b) { data { id a: steps { id } b: steps { content metrics { metrics { name } } } } }
        surveyStep(business: $b, survey: $s, id: $id) { survey { a: steps { id } b: steps { content metrics { metrics { name } } } } }
      }`,
      { b: busA, s: survey, id: ids.m },
    );
    const expected = {
      a: [{ id: ids.m }, { id: ids.t }, { id: ids.c }],
      b: [
        { content: { title: 'Rate us' }, metrics: { metrics: [{ name: 'Service' }, { name: 'Food' }] } },
        { content: {}, metrics: null },
        { content: { choices: ['a', 'b'] }, metrics: null },
      ],
    };
    expect(aliased.surveys.data.find((x: any) => x.id === survey)).toMatchObject(expected);
    expect(aliased.surveyStep.survey).toEqual(expected);
    const updated = await a.data(
      `mutation($b: ID!, $s: ID!) { updateSurvey(business: $b, id: $s, input: {}) { steps { id metrics { metrics { id name } } } } }`,
      { b: busA, s: survey },
    );
    expect(updated.updateSurvey.steps.map((s: any) => s.metrics)).toEqual([{ metrics: rated }, null, null]);
  });

  it('inserts at a position, shifting the others down', async () => {
    ids.i = (await createStep({ type: 'info', position: 1 })).id;
    expect(await order()).toEqual([
      { id: ids.m, position: 0 },
      { id: ids.i, position: 1 },
      { id: ids.t, position: 2 },
      { id: ids.c, position: 3 },
    ]);
    ids.n = (await createStep({ type: 'nps', position: 0 })).id;
    expect((await order()).map((s: any) => s.id)).toEqual([ids.n, ids.m, ids.i, ids.t, ids.c]);
    ids.end = (await createStep({ type: 'contact', position: 5 })).id;
    expect((await order()).map((s: any) => s.position)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('moves a step down and up; the others close up', async () => {
    await update(ids.n, { position: 3 });
    expect((await order()).map((s: any) => s.id)).toEqual([ids.m, ids.i, ids.t, ids.n, ids.c, ids.end]);
    await update(ids.c, { position: 0 });
    expect((await order()).map((s: any) => s.id)).toEqual([ids.c, ids.m, ids.i, ids.t, ids.n, ids.end]);
    expect((await order()).map((s: any) => s.position)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('deletes a step; positions close up; event recorded', async () => {
    expect((await del(ids.i)).deleteSurveyStep).toBe(ids.i);
    expect(await order()).toEqual([
      { id: ids.c, position: 0 },
      { id: ids.m, position: 1 },
      { id: ids.t, position: 2 },
      { id: ids.n, position: 3 },
      { id: ids.end, position: 4 },
    ]);
    const ev = await server.orm.em.fork().getConnection().execute(`select type from event where data->'object'->>'id' = ? order by id`, [ids.i]);
    expect(ev.map((e: any) => e.type)).toEqual(['surveystep.created', 'surveystep.deleted']);
    expect(
      (await a.error(`mutation($b: ID!, $s: ID!, $id: ID!) { deleteSurveyStep(business: $b, survey: $s, id: $id) }`, { b: busA, s: survey, id: ids.i })).code,
    ).toBe('NOT_FOUND');
  });

  it('keeps positions dense under concurrent inserts (row lock on the survey)', async () => {
    await Promise.all(Array.from({ length: 8 }, () => createStep({ type: 'text', position: 0 })));
    const positions = (await order()).map((s: any) => s.position);
    expect(positions).toEqual(Array.from({ length: positions.length }, (_, i) => i));
  });

  it('updates content, type and metrics; validates', async () => {
    const up = await update(ids.t, { required: true, content: { title: 'Why?' }, logic: { showIf: { step: ids.m } } });
    expect(up).toMatchObject({ required: true, content: { title: 'Why?' }, logic: { showIf: { step: ids.m } }, inputType: 'textarea' });
    const m = await update(ids.m, { metrics: { metrics: [metricIds[0]] } });
    expect(m.metrics.metrics.map((x: any) => x.id)).toEqual([metricIds[0]]);
    const err = await a.error(`mutation($b: ID!, $s: ID!, $id: ID!) { updateSurveyStep(business: $b, survey: $s, id: $id, input: {position: 99}) { id } }`, {
      b: busA,
      s: survey,
      id: ids.t,
    });
    expect(err.code).toBe('BAD_USER_INPUT');
    expect(err.details![0].field).toBe('position');
  });

  it('filters and sorts steps', async () => {
    const { surveySteps } = await a.data(
      `query($b: ID!, $s: ID!) { surveySteps(business: $b, survey: $s, where: {type: {in: ["metrics", "choice"]}, required: {eq: false}}, orderBy: [{field: position, order: desc}]) { data { id } total } }`,
      { b: busA, s: survey },
    );
    expect(surveySteps.data.map((s: any) => s.id)).toEqual([ids.c]);
    const pos = await a.data(`query($b: ID!, $s: ID!) { surveySteps(business: $b, survey: $s, where: {position: {gte: 1, lt: 3}}) { data { position } } }`, {
      b: busA,
      s: survey,
    });
    expect(pos.surveySteps.data.map((s: any) => s.position)).toEqual([1, 2]);
  });

  it('validates the step input, naming the fields', async () => {
    const cases: Array<[object, string]> = [
      [{ type: 'metrics' }, 'metrics.metrics'],
      [{ type: 'text', metrics: { metrics: [metricIds[0]] } }, 'metrics'],
      [{ type: 'choice', content: { choices: [] } }, 'content.choices'],
      [{ type: 'text', content: { title: 5 } }, 'content.title'],
      [{ type: 'text', validation: { maxLength: 'ten' } }, 'validation.maxLength'],
      [{ type: 'text', validation: { pattern: '(' } }, 'validation.pattern'],
      [{ type: 'text', position: 100 }, 'position'],
      [{ type: 'text', position: -1 }, 'position'],
      [{ type: 'metrics', metrics: { metrics: [metricIds[0], metricIds[0]] } }, 'metrics.metrics'],
    ];
    for (const [input, field] of cases) {
      const err = await createErr(input);
      expect([err.code, err.details?.map((d) => d.field)]).toEqual(['BAD_USER_INPUT', [field]]);
    }
    const badType = await a.raw(`mutation($b: ID!, $s: ID!) { createSurveyStep(business: $b, survey: $s, input: {type: video}) { id } }`, {
      b: busA,
      s: survey,
    });
    expect(badType.body.errors[0].message).toMatch(/video/);
  });

  it("refuses another business's metric, survey and step as NOT_FOUND", async () => {
    expect((await createErr({ type: 'metrics', metrics: { metrics: [theirMetric] } })).code).toBe('NOT_FOUND');
    expect((await createErr({ type: 'metrics', metrics: { metrics: ['sur_01ARZ3NDEKTSV4RRFFQ69G5FAV'] } })).code).toBe('NOT_FOUND');
    const theirSurvey = (await b.data(`mutation($b: ID!) { createSurvey(business: $b, input: {name: "T"}) { id } }`, { b: busB })).createSurvey.id;
    const theirStep = (await createStep({ type: 'text' }, b, busB, theirSurvey)).id;
    expect((await createErr({ type: 'text' }, a, busA, theirSurvey)).code).toBe('NOT_FOUND');
    expect((await a.error(`query($b: ID!, $s: ID!) { surveySteps(business: $b, survey: $s) { total } }`, { b: busA, s: theirSurvey })).code).toBe('NOT_FOUND');
    // Their step addressed through our survey.
    expect(
      (await a.error(`query($b: ID!, $s: ID!, $id: ID!) { surveyStep(business: $b, survey: $s, id: $id) { id } }`, { b: busA, s: survey, id: theirStep })).code,
    ).toBe('NOT_FOUND');
    expect(
      (await a.error(`mutation($b: ID!, $s: ID!, $id: ID!) { deleteSurveyStep(business: $b, survey: $s, id: $id) }`, { b: busA, s: survey, id: theirStep }))
        .code,
    ).toBe('NOT_FOUND');
  });

  it('Survey.steps lists them in position order', async () => {
    const { survey: s } = await a.data(`query($b: ID!, $id: ID!) { survey(business: $b, id: $id) { steps { id position survey { id } } } }`, {
      b: busA,
      id: survey,
    });
    expect(s.steps.map((x: any) => x.position)).toEqual(s.steps.map((_: unknown, i: number) => i));
  });
});
