import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { expectError, qs, rest } from './rest.helpers.js';

let server: TestServer;
let t: Tenant;
let other: Tenant;
let b: string;
let metricIds: string[];
let surveyId: string;
let stepId: string;
let submissionId: string;
let orderId: string;
const ID = /^[a-z]+_[0-9A-Z]{26}$/;

beforeAll(async () => {
  server = await startTestServer();
  t = await createTenant(server);
  other = await createTenant(server, { businessName: 'Other Cafe' });
  b = `/v2/businesses/${t.businessId}`;
  metricIds = [];
  for (const name of ['Food', 'Service', 'Ambiance']) {
    const res = await rest(server, 'POST', `${b}/metrics`, { tenant: t, body: { name, scale: { min: 1, max: 5 } } });
    expect(res.status).toBe(201);
    metricIds.push(res.body.data.id);
  }
  const survey = await rest(server, 'POST', `${b}/surveys`, { tenant: t, body: { name: 'Dinner', status: 'active' } });
  surveyId = survey.body.data.id;
  const step = await rest(server, 'POST', `${b}/surveys/${surveyId}/steps`, { tenant: t, body: { type: 'metrics', metrics: { metrics: metricIds } } });
  expect(step.status).toBe(201);
  stepId = step.body.data.id;
  const order = await rest(server, 'POST', `${b}/orders`, { tenant: t, body: { externalOrderId: 'ORD-1', total: 'Rs. 1,250.00', currency: 'PKR' } });
  orderId = order.body.data.id;
  const sub = await rest(server, 'POST', `${b}/surveys/${surveyId}/submissions`, {
    tenant: t,
    body: { answers: [{ step: stepId, ratings: { [metricIds[0]]: 5 } }], guestId: 'g-1', order: orderId },
  });
  expect(sub.status).toBe(201);
  submissionId = sub.body.data.id;
});
afterAll(() => server?.stop());

describe('surveys', () => {
  it('POST 201 with the object envelope', async () => {
    const res = await rest(server, 'POST', `${b}/surveys`, { tenant: t, body: { name: 'Lunch', description: 'Midday' } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'survey',
      data: expect.objectContaining({
        id: expect.stringMatching(/^sur_/),
        object: 'survey',
        name: 'Lunch',
        description: 'Midday',
        status: 'draft',
        steps: [],
        business: t.businessId,
      }),
    });
    expect(typeof res.body.data.createdAt).toBe('number');
  });

  it('GET one: steps are ids without expand, objects with it, at each depth', async () => {
    const plain = await rest(server, 'GET', `${b}/surveys/${surveyId}`, { tenant: t });
    expect(plain.status).toBe(200);
    expect(plain.body.object).toBe('survey');
    expect(plain.body.data.steps).toEqual([stepId]);
    expect(plain.body.data.business).toBe(t.businessId);

    const one = await rest(server, 'GET', `${b}/surveys/${surveyId}?expand=steps`, { tenant: t });
    expect(one.body.data.steps[0]).toEqual(expect.objectContaining({ id: stepId, object: 'surveystep', survey: surveyId, metrics: { metrics: metricIds } }));

    const two = await rest(server, 'GET', `${b}/surveys/${surveyId}?expand=steps.metrics`, { tenant: t });
    expect(two.body.data.steps[0].metrics).toEqual({ metrics: metricIds });

    const three = await rest(server, 'GET', `${b}/surveys/${surveyId}?expand=steps.metrics.metrics`, { tenant: t });
    expect(three.body.data.steps[0].metrics.metrics.map((m: any) => m.name)).toEqual(['Food', 'Service', 'Ambiance']);
    expect(three.body.data.steps[0].metrics.metrics[0]).toEqual(
      expect.objectContaining({ object: 'metric', scale: { min: 1, max: 5 }, business: t.businessId }),
    );

    const four = await rest(server, 'GET', `${b}/surveys/${surveyId}?expand=steps.survey.steps.metrics,business`, { tenant: t });
    expect(four.body.data.business).toEqual(expect.objectContaining({ id: t.businessId, object: 'business' }));
    expect(four.body.data.steps[0].survey).toEqual(expect.objectContaining({ id: surveyId, object: 'survey' }));
    expect(four.body.data.steps[0].survey.steps[0]).toEqual(expect.objectContaining({ id: stepId, metrics: { metrics: metricIds } }));
  });

  it('PATCH 200 and DELETE 204 with no body', async () => {
    const created = await rest(server, 'POST', `${b}/surveys`, { tenant: t, body: { name: 'Temp' } });
    const id = created.body.data.id;
    const patched = await rest(server, 'PATCH', `${b}/surveys/${id}`, { tenant: t, body: { status: 'archived' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toEqual({ object: 'survey', data: expect.objectContaining({ id, name: 'Temp', status: 'archived' }) });
    const deleted = await rest(server, 'DELETE', `${b}/surveys/${id}`, { tenant: t });
    expect(deleted.status).toBe(204);
    expect(deleted.body).toBeUndefined();
    expectError(await rest(server, 'GET', `${b}/surveys/${id}`, { tenant: t }), 404, 'not_found');
  });

  it("404 for an unknown id, a malformed id and another business's id", async () => {
    const theirs = await rest(server, 'POST', `/v2/businesses/${other.businessId}/surveys`, { tenant: other, body: { name: 'Theirs' } });
    for (const id of ['sur_01ZZZZZZZZZZZZZZZZZZZZZZZZ', 'not-an-id', 'mtr_01M7ZS49GB66JMR91B3TQQVABD', theirs.body.data.id]) {
      expectError(await rest(server, 'GET', `${b}/surveys/${id}`, { tenant: t }), 404, 'not_found');
      expectError(await rest(server, 'PATCH', `${b}/surveys/${id}`, { tenant: t, body: { name: 'x' } }), 404, 'not_found');
      expectError(await rest(server, 'DELETE', `${b}/surveys/${id}`, { tenant: t }), 404, 'not_found');
    }
  });

  it('request body validation: 400 with a detail per field, never a GraphQL message', async () => {
    const res = await rest(server, 'POST', `${b}/surveys`, { tenant: t, body: { status: 'open', description: 12, colour: 'red' } });
    expectError(res, 400, 'validation_failed');
    expect(res.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'name', message: expect.stringContaining('is required') },
        { field: 'status', message: 'must be one of draft, active, archived' },
        { field: 'description', message: 'must be a string' },
        { field: 'colour', message: expect.stringContaining('is not a known field') },
      ]),
    );
    const array = await rest(server, 'POST', `${b}/surveys`, { tenant: t, body: [1, 2] });
    expectError(array, 400);
    const nested = await rest(server, 'POST', `${b}/surveys/${surveyId}/steps`, { tenant: t, body: { type: 'metrics', metrics: { metrics: [1, null] } } });
    expectError(nested, 400, 'validation_failed');
    expect(nested.body.error.details.map((d: any) => d.field)).toEqual(expect.arrayContaining(['metrics.metrics[1]']));
    const domain = await rest(server, 'POST', `${b}/metrics`, { tenant: t, body: { name: '' } });
    expectError(domain, 400);
  });

  it('405 with Allow', async () => {
    const res = await rest(server, 'PUT', `${b}/surveys/${surveyId}`, { tenant: t, body: {} });
    expectError(res, 405, 'method_not_allowed');
    expect(res.headers.get('allow')).toBe('GET, PATCH, DELETE, HEAD');
    const list = await rest(server, 'DELETE', `${b}/surveys`, { tenant: t });
    expect(list.status).toBe(405);
    expect(list.headers.get('allow')).toBe('GET, POST, HEAD');
  });

  it('413 and 415 bodies', async () => {
    expectError(await rest(server, 'POST', `${b}/surveys`, { tenant: t, rawBody: 'name=x', headers: { 'content-type': 'text/plain' } }), 415);
    expectError(
      await rest(server, 'POST', `${b}/surveys`, {
        tenant: t,
        rawBody: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
        headers: { 'content-type': 'application/json' },
      }),
      413,
    );
    expectError(
      await rest(server, 'POST', `${b}/surveys`, { tenant: t, rawBody: '{"name":', headers: { 'content-type': 'application/json' } }),
      400,
      'bad_request',
    );
  });
});

describe('survey lists: pagination, sorts, filters', () => {
  let tenant: Tenant;
  let base: string;
  const names = ['Alpha', 'Bravo', 'Charlie', 'Delta', 'Echo'];
  const created: any[] = [];
  beforeAll(async () => {
    tenant = await createTenant(server);
    base = `/v2/businesses/${tenant.businessId}/surveys`;
    for (const [i, name] of names.entries()) {
      created.push((await rest(server, 'POST', base, { tenant, body: { name, status: i % 2 ? 'active' : 'draft' } })).body.data);
    }
  });

  it('default order createdAt desc; pages, the last page and an empty page', async () => {
    const first = await rest(server, 'GET', `${base}?pageSize=2`, { tenant });
    expect(first.body).toEqual({
      object: 'list',
      data: expect.any(Array),
      page: 0,
      pageSize: 2,
      total: 5,
      hasMore: true,
      links: { next: expect.stringMatching(/[?&]page=1(&|$)/), previous: null },
    });
    expect(first.body.data.map((s: any) => s.name)).toEqual(['Echo', 'Delta']);
    const last = await rest(server, 'GET', `${base}?pageSize=2&page=2`, { tenant });
    expect(last.body).toEqual(expect.objectContaining({ page: 2, total: 5, hasMore: false }));
    expect(last.body.data.map((s: any) => s.name)).toEqual(['Alpha']);
    const empty = await rest(server, 'GET', `${base}?pageSize=2&page=9`, { tenant });
    expect(empty.body).toEqual({
      object: 'list',
      data: [],
      page: 9,
      pageSize: 2,
      total: 5,
      hasMore: false,
      links: { next: null, previous: expect.stringMatching(/[?&]page=8(&|$)/) },
    });
    const defaults = await rest(server, 'GET', base, { tenant });
    expect(defaults.body).toEqual(expect.objectContaining({ page: 0, pageSize: 20, hasMore: false }));
  });

  it('sorts: one and several', async () => {
    const byName = await rest(server, 'GET', `${base}${qs({ sorts: { field: 'name', order: 'asc' } })}`, { tenant });
    expect(byName.body.data.map((s: any) => s.name)).toEqual(names);
    const two = await rest(
      server,
      'GET',
      `${base}${qs({
        sorts: [
          { field: 'status', order: 'asc' },
          { field: 'name', order: 'desc' },
        ],
      })}`,
      { tenant },
    );
    expect(two.body.data.map((s: any) => s.name)).toEqual(['Delta', 'Bravo', 'Echo', 'Charlie', 'Alpha']);
  });

  it('each filter type', async () => {
    const at = created.map((s) => s.createdAt);
    const cases: [unknown, string[]][] = [
      [{ field: 'name', type: 'eq', value: 'Bravo' }, ['Bravo']],
      [{ field: 'status', type: 'ne', value: 'draft' }, ['Bravo', 'Delta']],
      [{ field: 'createdAt', type: 'gt', value: at[2] }, ['Delta', 'Echo']],
      [{ field: 'createdAt', type: 'gte', value: at[2] }, ['Charlie', 'Delta', 'Echo']],
      [{ field: 'createdAt', type: 'lt', value: at[1] }, ['Alpha']],
      [{ field: 'createdAt', type: 'lte', value: at[1] }, ['Alpha', 'Bravo']],
      [{ field: 'name', type: 'in', value: ['Alpha', 'Echo', 'Zulu'] }, ['Alpha', 'Echo']],
      [{ field: 'name', type: 'contains', value: 'LT' }, ['Delta']],
      [{ field: 'id', type: 'eq', value: created[3].id }, ['Delta']],
    ];
    for (const [filter, want] of cases) {
      const res = await rest(server, 'GET', `${base}${qs({ filters: filter, sorts: { field: 'name', order: 'asc' } })}`, { tenant });
      expect({ filter, status: res.status, names: res.body.data?.map((s: any) => s.name) }).toEqual({ filter, status: 200, names: want });
    }
    const combined = await rest(
      server,
      'GET',
      `${base}${qs({
        filters: [
          { field: 'status', type: 'eq', value: 'draft' },
          { field: 'createdAt', type: 'gte', value: at[1] },
        ],
      })}`,
      { tenant },
    );
    expect(combined.body.data.map((s: any) => s.name)).toEqual(['Echo', 'Charlie']);
    expect(combined.body.total).toBe(2);
  });

  it('every 400 of the query conventions names the parameter and shows an example', async () => {
    const cases: [string, string, RegExp][] = [
      ['page=x', 'page', /page=0/],
      ['page=-1', 'page', /page=0/],
      ['pageSize=101', 'pageSize', /pageSize=20/],
      ['pageSize=0', 'pageSize', /pageSize=20/],
      ['sorts={oops', 'sorts', /sorts=\{"field":"createdAt","order":"desc"\}/],
      [`sorts=${encodeURIComponent('{"field":"colour"}')}`, 'sorts', /sortable fields: createdAt, updatedAt, name, status/],
      [`sorts=${encodeURIComponent('{"field":"name","order":"sideways"}')}`, 'sorts', /orders: asc, desc/],
      ['filters=nope', 'filters', /filters=\{"field":"createdAt","type":"gte"/],
      [`filters=${encodeURIComponent('{"field":"colour","type":"eq","value":1}')}`, 'filters', /filterable fields: /],
      [`filters=${encodeURIComponent('{"field":"name","type":"near","value":1}')}`, 'filters', /types: (\w+, )+contains/],
      [`filters=${encodeURIComponent('{"field":"name","type":"in","value":"x"}')}`, 'filters', /takes an array/],
      [`filters=${encodeURIComponent('{"field":"createdAt","type":"gte","value":"yesterday"}')}`, 'filters', /createdAt.*must be a timestamp in milliseconds/],
      ['expand=colour', 'expand', /expandable there: business, steps/],
      ['expand=steps.survey.steps.metrics.metrics', 'expand', /maximum is 4/],
      ['limit=10', 'limit', /this route takes page, pageSize, sorts, filters, expand/],
    ];
    for (const [query, parameter, pattern] of cases) {
      const res = await rest(server, 'GET', `${base}?${query}`, { tenant });
      expectError(res, 400, 'bad_request');
      expect({ query, message: res.body.error.message }).toEqual({ query, message: expect.stringMatching(new RegExp(`^${parameter}: `)) });
      expect({ query, message: res.body.error.message }).toEqual({ query, message: expect.stringMatching(pattern) });
      expect(res.body.error.message).toMatch(/Example/);
    }
    expectError(await rest(server, 'GET', `${base}/${created[0].id}?page=1`, { tenant }), 400, 'bad_request');
  });
});

describe('survey steps', () => {
  it('CRUD with statuses, envelopes, the survey as an id or an object', async () => {
    const base = `${b}/surveys/${surveyId}/steps`;
    const created = await rest(server, 'POST', base, { tenant: t, body: { type: 'text', content: { title: 'Anything else?' }, required: true } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      object: 'surveystep',
      data: expect.objectContaining({ type: 'text', position: 1, survey: surveyId, business: t.businessId, metrics: null }),
    });
    const id = created.body.data.id;
    const list = await rest(server, 'GET', `${base}?sorts=${encodeURIComponent('{"field":"position","order":"asc"}')}`, { tenant: t });
    expect(list.body).toEqual(expect.objectContaining({ object: 'list', total: 2 }));
    expect(list.body.data.map((s: any) => s.id)).toEqual([stepId, id]);
    const filtered = await rest(server, 'GET', `${base}${qs({ filters: { field: 'required', type: 'eq', value: true } })}`, { tenant: t });
    expect(filtered.body.data.map((s: any) => s.id)).toEqual([id]);
    const one = await rest(server, 'GET', `${base}/${id}?expand=survey`, { tenant: t });
    expect(one.body.data.survey).toEqual(expect.objectContaining({ id: surveyId, object: 'survey', steps: [stepId, id] }));
    const patched = await rest(server, 'PATCH', `${base}/${id}`, { tenant: t, body: { position: 0 } });
    expect(patched.status).toBe(200);
    expect(patched.body.data.position).toBe(0);
    expect((await rest(server, 'DELETE', `${base}/${id}`, { tenant: t })).status).toBe(204);
    expectError(await rest(server, 'GET', `${base}/${id}`, { tenant: t }), 404, 'not_found');
    expectError(await rest(server, 'GET', `${b}/surveys/sur_01ZZZZZZZZZZZZZZZZZZZZZZZZ/steps`, { tenant: t }), 404, 'not_found');
  });
});

describe('metrics', () => {
  it('list, get, patch, delete (409 while rated), 404', async () => {
    const list = await rest(server, 'GET', `${b}/metrics?sorts=${encodeURIComponent('{"field":"name","order":"asc"}')}`, { tenant: t });
    expect(list.status).toBe(200);
    expect(list.body.data.map((m: any) => m.name)).toEqual(['Ambiance', 'Food', 'Service']);
    expect(list.body.data[0]).toEqual(expect.objectContaining({ object: 'metric', business: t.businessId, scale: { min: 1, max: 5 } }));
    const one = await rest(server, 'GET', `${b}/metrics/${metricIds[0]}?expand=business`, { tenant: t });
    expect(one.body).toEqual({
      object: 'metric',
      data: expect.objectContaining({ id: metricIds[0], business: expect.objectContaining({ id: t.businessId }) }),
    });
    const patched = await rest(server, 'PATCH', `${b}/metrics/${metricIds[0]}`, { tenant: t, body: { description: 'Taste' } });
    expect(patched.body.data.description).toBe('Taste');
    expectError(await rest(server, 'DELETE', `${b}/metrics/${metricIds[0]}`, { tenant: t }), 409, 'conflict');
    const scale = await rest(server, 'POST', `${b}/metrics`, { tenant: t, body: { name: 'Bad', scale: { min: 'one' } } });
    expectError(scale, 400, 'validation_failed');
    expect(scale.body.error.details.map((d: any) => d.field).sort()).toEqual(['scale.max', 'scale.min']);
    const temp = await rest(server, 'POST', `${b}/metrics`, { tenant: t, body: { name: 'Temp' } });
    expect((await rest(server, 'DELETE', `${b}/metrics/${temp.body.data.id}`, { tenant: t })).status).toBe(204);
    expectError(await rest(server, 'GET', `${b}/metrics/${temp.body.data.id}`, { tenant: t }), 404);
  });
});

describe('submissions', () => {
  const base = () => `${b}/surveys/${surveyId}/submissions`;

  it('ids without expand; survey, order expanded down to depth 4', async () => {
    const plain = await rest(server, 'GET', `${base()}/${submissionId}`, { tenant: t });
    expect(plain.status).toBe(200);
    expect(plain.body).toEqual({
      object: 'submission',
      data: expect.objectContaining({
        id: submissionId,
        survey: surveyId,
        order: orderId,
        location: null,
        business: t.businessId,
        guestId: 'g-1',
        answers: [{ step: stepId, value: null, ratings: { [metricIds[0]]: 5 }, items: null }],
      }),
    });
    const deep = await rest(server, 'GET', `${base()}/${submissionId}?expand=survey.steps.metrics.metrics,order`, { tenant: t });
    const survey = deep.body.data.survey;
    expect(survey).toEqual(expect.objectContaining({ id: surveyId, object: 'survey' }));
    expect(survey.steps[0].metrics.metrics.map((m: any) => m.id)).toEqual(metricIds);
    expect(deep.body.data.order).toEqual(expect.objectContaining({ id: orderId, object: 'order', total: 1250, submissions: [submissionId] }));
    const list = await rest(server, 'GET', `${base()}?expand=survey.steps`, { tenant: t });
    expect(list.body).toEqual(expect.objectContaining({ object: 'list', total: 1, hasMore: false }));
    expect(list.body.data[0].survey.steps[0]).toEqual(expect.objectContaining({ id: stepId, survey: surveyId }));
    const byGuest = await rest(server, 'GET', `${base()}${qs({ filters: { field: 'guestId', type: 'eq', value: 'nobody' } })}`, { tenant: t });
    expect(byGuest.body).toEqual({ object: 'list', data: [], page: 0, pageSize: 20, total: 0, hasMore: false, links: { next: null, previous: null } });
    const byOrder = await rest(server, 'GET', `${base()}${qs({ filters: { field: 'order', type: 'in', value: [orderId] } })}`, { tenant: t });
    expect(byOrder.body.total).toBe(1);
  });

  it('PATCH, DELETE and validation details', async () => {
    const bad = await rest(server, 'POST', base(), { tenant: t, body: { answers: [{ value: 3 }], custom: { customOrderId: 5 } } });
    expectError(bad, 400, 'validation_failed');
    expect(bad.body.error.details.map((d: any) => d.field).sort()).toEqual(['answers[0].step', 'custom.customOrderId']);
    const created = await rest(server, 'POST', base(), { tenant: t, body: { answers: [{ step: stepId, ratings: { [metricIds[1]]: 3 } }] } });
    expect(created.status).toBe(201);
    const patched = await rest(server, 'PATCH', `${base()}/${created.body.data.id}`, { tenant: t, body: { sessionId: 's-9' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data.sessionId).toBe('s-9');
    expect((await rest(server, 'DELETE', `${base()}/${created.body.data.id}`, { tenant: t })).status).toBe(204);
    expectError(await rest(server, 'DELETE', `${base()}/${created.body.data.id}`, { tenant: t }), 404);
  });

  it('a token without orders:read still reads submissions: the order relation is withheld, expanding it is a 403', async () => {
    const limited = await createTenant(server, { scopes: ['submissions:read', 'submissions:write', 'surveys:read', 'surveys:write', 'metrics:write'] });
    const lb = `/v2/businesses/${limited.businessId}`;
    const s = await rest(server, 'POST', `${lb}/surveys`, { tenant: limited, body: { name: 'S' } });
    const step = await rest(server, 'POST', `${lb}/surveys/${s.body.data.id}/steps`, { tenant: limited, body: { type: 'text' } });
    const sub = await rest(server, 'POST', `${lb}/surveys/${s.body.data.id}/submissions`, {
      tenant: limited,
      body: { answers: [{ step: step.body.data.id, value: 'hi' }] },
    });
    expect(sub.status).toBe(201);
    expect(sub.body.data).not.toHaveProperty('order');
    expect(sub.body.data).not.toHaveProperty('location');
    expect(sub.body.data.survey).toBe(s.body.data.id);
    expectError(
      await rest(server, 'GET', `${lb}/surveys/${s.body.data.id}/submissions/${sub.body.data.id}?expand=order`, { tenant: limited }),
      403,
      'forbidden',
    );
  });
});

describe('access control: the same tokens and scopes as /graphql', () => {
  it('401 without a token and with a bad one; 403 for another business and a missing scope', async () => {
    expectError(await rest(server, 'GET', `${b}/surveys`), 401, 'unauthorized');
    expectError(await rest(server, 'GET', `${b}/surveys`, { headers: { authorization: 'Bearer not.a.jwt' } }), 401, 'unauthorized');
    expectError(await rest(server, 'GET', `${b}/surveys`, { headers: { authorization: 'Basic abc' } }), 401, 'unauthorized');
    expectError(await rest(server, 'POST', `${b}/surveys`, { body: { name: 'x' } }), 401, 'unauthorized');
    expectError(await rest(server, 'GET', `/v2/businesses/${other.businessId}/surveys`, { tenant: t }), 403, 'forbidden');
    expectError(await rest(server, 'GET', `/v2/businesses/${other.businessId}/surveys/${surveyId}/steps`, { tenant: t }), 403, 'forbidden');
    const readOnly = await createTenant(server, { scopes: ['surveys:read'] });
    const rb = `/v2/businesses/${readOnly.businessId}`;
    expect((await rest(server, 'GET', `${rb}/surveys`, { tenant: readOnly })).status).toBe(200);
    expectError(await rest(server, 'POST', `${rb}/surveys`, { tenant: readOnly, body: { name: 'x' } }), 403, 'forbidden');
    expectError(await rest(server, 'GET', `${rb}/metrics`, { tenant: readOnly }), 403, 'forbidden');
    expectError(await rest(server, 'GET', `${b}/surveys/${surveyId}/submissions`, { tenant: readOnly }), 403, 'forbidden');
  });

  it('ids are well-formed prefixed strings everywhere', async () => {
    const res = await rest(server, 'GET', `${b}/surveys/${surveyId}`, { tenant: t });
    expect(res.body.data.id).toMatch(ID);
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  });
});
