import fc from 'fast-check';
import { jest } from '@jest/globals';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import type { GraphQLSchema } from 'graphql';
import { ROUTES } from '../../rest-adapter/route.table.js';
import { routeModel, type RouteModel } from '../../rest-adapter/schema.model.js';
import { buildAppSchema } from '../../src/graphql/schema.js';
import { rest } from './rest.helpers.js';
import { createUser } from '../../src/modules/user/user.service.js';
import { createMember } from '../../src/modules/member/member.service.js';

/**
 * "Never a 500 for something a client sent", checked by generation: for every REST route that takes a body or list
 * conventions, bodies mixing the real field names with hostile values, and query strings with random conventions.
 * Every answer must be a 2xx or a 4xx with the error body; the run takes a few seconds.
 */
jest.setTimeout(120_000);

// A fixed seed keeps CI deterministic; FUZZ_SEED=<n> npm test -- test/rest/fuzz explores other inputs.
const RUN = { seed: Number(process.env.FUZZ_SEED ?? 20261121), numRuns: 60 };

let server: TestServer;
let tenant: Tenant;
const ids: Record<string, string> = {};

beforeAll(async () => {
  server = await startTestServer();
  tenant = await createTenant(server);
  const b = `/v2/businesses/${tenant.businessId}`;
  const post = async (path: string, body: object) => {
    const { status, body: answer } = await rest(server, 'POST', `${b}${path}`, { tenant, body });
    if (status !== 201) throw new Error(`seed ${path}: ${status} ${JSON.stringify(answer)}`);
    return answer.data.id as string;
  };
  ids.metric = await post('/metrics', { name: 'Food' });
  ids.survey = await post('/surveys', { name: 'Visit' });
  ids.step = await post(`/surveys/${ids.survey}/steps`, { type: 'metrics', metrics: { metrics: [ids.metric] } });
  // A rule the seeded submission matches, so that it opens the case the cases' routes are fuzzed on.
  ids.rule = await post('/alert-rules', { name: 'Low', when: { maxRating: 4 }, notify: [{ role: 'owner' }] });
  // About an order with the guest's e-mail and phone, so that the case's messages can reach them.
  ids.guestOrder = await post('/orders', {
    externalOrderId: 'G-1',
    total: 10,
    currency: 'PKR',
    customerEmail: 'guest@example.com',
    customerPhoneNumber: '+923001112233',
  });
  ids.submission = await post(`/surveys/${ids.survey}/submissions`, { answers: [{ step: ids.step, ratings: { [ids.metric]: 4 } }], order: ids.guestOrder });
  ids.case = (await rest(server, 'GET', `${b}/cases`, { tenant })).body.data[0].id;
  ids.template = await post('/reply-templates', { name: 'Sorry', body: 'We are sorry.' });
  ids.location = await post('/locations', { name: 'Main', metadata: { code: 'M1' } });
  ids.order = await post('/orders', { externalOrderId: 'A-1', total: 10, currency: 'PKR' });
  ids.webhook = await post('/webhooks', { url: 'https://example.com/hook', events: ['*'] });
  ids.credential = await post('/credentials', { name: 'App', validRedirectUris: ['https://example.com/cb'] });
  // Accounts to invite (each once: then a conflict), one of them a member already (as the operator adds one) to change.
  for (const email of PEOPLE) await createUser(server.orm.em.fork(), { email, password: 'a long passphrase' });
  ids.member = (await createMember(server.orm.em.fork(), tenant.businessId, { email: PEOPLE[0], role: 'staff' })).id;
  ids.invitation = await post('/invitations', { email: 'invited@example.com', role: 'staff' });
  ids.flow = await post('/feedback-flows', { name: 'Flow', survey: ids.survey });
});
afterAll(() => server?.stop());

// Mostly well-formed values with edge-case content, so requests get past the shape checks into the domain code.
const text = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', '\u00e9\u0301', 'x'.repeat(5000), '%', '_', '\\', "'; drop table survey; --", 'ACCEPTED', 'active', 'a.b', '.', 'k.', '.v'),
);
const int = fc.oneof(fc.integer({ min: -5, max: 10 }), fc.constantFrom(-1, 0, 2 ** 31, 2 ** 31 - 1, 2 ** 53 - 1, -(2 ** 53) + 1));
const num = fc.oneof(int, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.constantFrom(0.5, 1e15, 1e300, -0.01));
const idOf = (...kinds: string[]) =>
  fc.oneof(fc.constantFrom(...kinds.map((k) => ids[k])), fc.constantFrom(...Object.values(ids), 'mtr_01ARZ3NDEKTSV4RRFFQ69G5FAV', 'x'));
const json = fc.object({ maxDepth: 2, maxKeys: 4 });
const strMap = fc.dictionary(text, text, { maxKeys: 4 });
/** Mostly a valid value, sometimes a hostile one: bodies with many fields still get through now and then. */
const mostly = <T, U>(valid: fc.Arbitrary<T>, hostile: fc.Arbitrary<U>) => fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: hostile });
const opt = <T>(record: { [K in keyof T]: fc.Arbitrary<T[K]> }) => fc.record(record, { requiredKeys: [] });

const PEOPLE = ['fuzz-a@example.com', 'fuzz-b@example.com', 'fuzz-c@example.com', 'fuzz-d@example.com', 'fuzz-e@example.com'];

const BODIES: Record<string, fc.Arbitrary<unknown>> = {
  invitations: opt({
    email: mostly(fc.emailAddress(), text),
    role: mostly(fc.constantFrom('owner', 'manager', 'staff'), fc.oneof(fc.constantFrom('admin', ''), text)),
  }),
  members: opt({
    email: mostly(fc.constantFrom(...PEOPLE), fc.oneof(fc.emailAddress(), text)),
    role: mostly(fc.constantFrom('owner', 'manager', 'staff'), fc.oneof(fc.constantFrom('admin', ''), text)),
  }),
  surveys: opt({ name: text, description: fc.option(text), status: fc.constantFrom('draft', 'active', 'archived', 'deleted') }),
  metrics: opt({ name: text, description: fc.option(text), scale: opt({ min: int, max: int }) }),
  steps: opt({
    type: fc.constantFrom('metrics', 'text', 'choice', 'nps', 'info', 'location', 'contact', 'video'),
    position: int,
    required: fc.boolean(),
    content: json,
    inputType: fc.option(text),
    validation: fc.option(json),
    logic: fc.option(json),
    metrics: opt({ metrics: fc.array(idOf('metric'), { maxLength: 4 }) }),
  }),
  submissions: opt({
    answers: fc.array(
      opt({
        step: idOf('step'),
        value: fc.oneof(text, num, fc.array(text, { maxLength: 3 })),
        ratings: fc.dictionary(idOf('metric'), num, { maxKeys: 3 }),
      }).map((answer) => ({ step: ids.step, ...answer })),
      { maxLength: 4 },
    ),
    guestId: text,
    sessionId: text,
    metadata: json,
    custom: opt({ customOrderId: text, customLocationId: text }),
    locationMetadata: text,
    order: idOf('order'),
    location: idOf('location'),
  }),
  locations: opt({ name: text, metadata: strMap }),
  orders: fc.record(
    {
      externalOrderId: mostly(fc.uuid(), text),
      externalLocationId: fc.option(text),
      externalBrandId: text,
      total: mostly(fc.integer({ min: 0, max: 10 ** 6 }), fc.oneof(num, text, fc.constantFrom('Rs. 1,250.00', '1.250,75 \u20ac'))),
      subtotal: mostly(fc.double({ min: 0, max: 1e6, noNaN: true }), fc.oneof(num, text)),
      deliveryCharge: mostly(fc.constantFrom('150', 'Rs. 99.50', 0), fc.oneof(num, text)),
      currency: mostly(fc.constantFrom('PKR', 'usd', 'GBP'), fc.oneof(fc.constantFrom('XYZ', 'EURO'), text)),
      channel: fc.oneof(fc.constantFrom('Food Panda', 'call_in', 'IOS'), text),
      status: mostly(fc.constantFrom('PENDING', 'ACCEPTED'), fc.constantFrom('accepted', 'CANCELLED')),
      customerName: mostly(fc.string({ maxLength: 30 }), text),
      customerEmail: fc.oneof(fc.emailAddress(), text),
      customerPhoneNumber: fc.oneof(fc.constantFrom('+92 300 1234567', '0300-1234567', '123'), text),
      metadata: mostly(fc.dictionary(fc.stringMatching(/^[a-z]{1,8}$/), fc.string({ maxLength: 20 }), { maxKeys: 3 }), strMap),
      items: fc.array(
        opt({
          itemId: text,
          name: mostly(fc.string({ minLength: 1, maxLength: 30 }), text),
          quantity: mostly(fc.integer({ min: 1, max: 20 }), int),
          unitPrice: mostly(fc.integer({ min: 0, max: 10 ** 5 }), num),
          totalPrice: mostly(fc.integer({ min: 0, max: 10 ** 5 }), num),
          salesTaxPercent: mostly(fc.double({ min: 0, max: 100, noNaN: true }), num),
          salesTaxAmount: mostly(fc.integer({ min: 0, max: 10 ** 4 }), num),
          itemComment: text,
        }),
        { maxLength: 3 },
      ),
    },
    { requiredKeys: ['externalOrderId', 'total', 'currency'] },
  ),
  webhooks: opt({
    url: fc.oneof(fc.webUrl(), text),
    events: fc.array(fc.oneof(fc.constantFrom('*', 'order.created', 'survey.deleted'), text), { maxLength: 3 }),
    description: fc.option(text),
    enabled: fc.boolean(),
  }),
  credentials: opt({ name: text, validRedirectUris: fc.array(fc.oneof(fc.webUrl(), text), { maxLength: 3 }) }),
  'feedback-flows': fc.record(
    {
      name: mostly(fc.string({ minLength: 1, maxLength: 30 }), text),
      survey: mostly(
        fc.constant(ids.survey).map(() => ids.survey),
        idOf('survey'),
      ),
      enabled: fc.boolean(),
      priority: int,
      trigger: mostly(fc.constantFrom('order.created', 'order.accepted'), text),
      conditions: mostly(
        fc.option(
          opt({
            channel: fc.constant(['WEBSITE', 'QR']),
            location: fc.array(fc.string({ minLength: 1, maxLength: 10 }), { minLength: 1, maxLength: 2 }),
            minTotal: fc.integer({ min: 0, max: 1000 }),
            hasEmail: fc.boolean(),
          }),
        ),
        fc.oneof(json, opt({ channel: fc.array(text), metadata: strMap, hasPhone: json })),
      ),
      channels: mostly(fc.constantFrom(['email'], ['sms', 'email']), fc.array(fc.oneof(fc.constantFrom('email', 'sms'), text), { maxLength: 3 })),
      delayMinutes: mostly(fc.integer({ min: 0, max: 43200 }), int),
      quietHours: mostly(
        fc.option(
          fc.record({ from: fc.constantFrom('21:00', '22:30'), to: fc.constantFrom('09:00', '07:15'), timeZone: fc.constantFrom('Asia/Karachi', 'UTC') }),
        ),
        opt({ from: fc.oneof(fc.constantFrom('24:00'), text), to: text, timeZone: fc.oneof(fc.constantFrom('Mars/Base'), text) }),
      ),
      throttleDays: mostly(fc.integer({ min: 0, max: 365 }), int),
      reminderAfterHours: mostly(fc.option(fc.integer({ min: 1, max: 48 })), int),
      expiresAfterHours: mostly(fc.integer({ min: 1, max: 500 }), int),
      templates: mostly(
        fc.constant({ en: { subject: 'Hi', body: 'Tell us: {{link}}' } }),
        fc.oneof(
          json,
          fc.dictionary(
            fc.oneof(fc.constantFrom('en', 'ur'), text),
            opt({
              subject: text,
              body: fc.oneof(
                text,
                text.map((t) => `${t} {{link}} {{name}} {{x}}`),
              ),
            }),
            { maxKeys: 2 },
          ),
        ),
      ),
    },
    { requiredKeys: ['name', 'survey'] },
  ),
  'alert-rules': fc.record(
    {
      name: mostly(fc.string({ minLength: 1, maxLength: 30 }), text),
      enabled: fc.boolean(),
      severity: mostly(fc.constantFrom('normal', 'urgent'), text),
      when: mostly(
        opt({
          maxRating: fc.integer({ min: 0, max: 5 }),
          maxNps: fc.integer({ min: 0, max: 10 }),
          keywords: fc.array(fc.constantFrom('cold', 'rude', 'بیمار'), { maxLength: 2 }),
          locations: fc.constant([ids.location]).map(() => [ids.location]),
          surveys: fc.array(idOf('survey'), { maxLength: 2 }),
        }),
        fc.oneof(json, opt({ maxRating: num, maxNps: num, keywords: fc.array(text, { maxLength: 3 }), locations: fc.array(text, { maxLength: 2 }) })),
      ),
      notify: mostly(
        fc.constantFrom(
          [{ role: 'owner' }],
          [
            { channel: 'email', to: 'alerts@example.com' },
            { channel: 'sms', to: '+923001234567' },
          ],
        ),
        fc.array(opt({ channel: fc.oneof(fc.constantFrom('email', 'sms', 'fax'), text), to: text, role: fc.oneof(fc.constantFrom('owner', 'staff'), text) }), {
          maxLength: 3,
        }),
      ),
      escalateAfterMinutes: mostly(fc.option(fc.integer({ min: 1, max: 60 })), int),
    },
    { requiredKeys: ['name', 'when', 'notify'] },
  ),
  'theme-settings': opt({
    off: fc.array(mostly(fc.constantFrom('food', 'speed', 'staff', 'cleanliness', 'price', 'parking'), text), { maxLength: 4 }),
    words: fc.array(
      opt({
        theme: mostly(fc.constantFrom('food', 'parking', 'staff'), text),
        language: mostly(fc.constantFrom('en', 'ur', 'ur-Latn'), text),
        words: fc.array(text, { maxLength: 4 }),
      }),
      { maxLength: 3 },
    ),
  }),
  'reply-templates': fc.record(
    { name: mostly(fc.string({ minLength: 1, maxLength: 30 }), text), body: mostly(fc.string({ minLength: 1, maxLength: 300 }), text) },
    { requiredKeys: [] },
  ),
  offers: fc.record(
    {
      description: mostly(fc.string({ minLength: 1, maxLength: 100 }), text),
      expiresInDays: mostly(fc.integer({ min: 1, max: 365 }), int),
      send: fc.boolean(),
    },
    { requiredKeys: ['description'] },
  ),
  cases: opt({
    status: mostly(fc.constantFrom('open', 'replied', 'resolved', 'recovered'), text),
    assignee: mostly(fc.option(fc.constant('').map(() => ids.member)), idOf('member')),
  }),
  messages: fc.record(
    { body: mostly(fc.string({ minLength: 1, maxLength: 200 }), text), channel: mostly(fc.option(fc.constantFrom('email', 'sms')), text) },
    { requiredKeys: [] },
  ),
  // PATCH /v2/businesses/{business} (issue 36): colours light and dark (the contrast check), URLs of any scheme.
  businesses: opt({
    name: mostly(fc.string({ minLength: 1, maxLength: 60 }), text),
    displayName: mostly(fc.option(fc.string({ maxLength: 90 })), text),
    brandColor: mostly(fc.option(fc.stringMatching(/^#[0-9A-Fa-f]{6}$/)), fc.oneof(fc.constantFrom('#FFF', 'red', '#GGGGGG', '#1d4ed8 '), text)),
    reviewUrl: mostly(fc.option(fc.webUrl({ validSchemes: ['https'] })), fc.oneof(fc.webUrl(), fc.constantFrom('javascript:alert(1)', 'https://'), text)),
    replyTo: mostly(fc.option(fc.emailAddress()), text),
  }),
};

/** Updates take fewer fields where a resource's identity or links are fixed at creation. */
const ONLY = (resource: string, fields: string[]) =>
  (BODIES[resource] as fc.Arbitrary<Record<string, unknown>>).map((b) => Object.fromEntries(Object.entries(b).filter(([k]) => fields.includes(k))));
const UPDATES: Record<string, fc.Arbitrary<unknown>> = {
  orders: ONLY('orders', [
    'status',
    'externalBrandId',
    'total',
    'subtotal',
    'deliveryCharge',
    'currency',
    'channel',
    'customerName',
    'customerEmail',
    'customerPhoneNumber',
    'metadata',
  ]),
  submissions: ONLY('submissions', ['answers', 'guestId', 'sessionId', 'metadata', 'order', 'location']),
};

/** A query string built from the route's own conventions: real fields and operators, edge-case values. */
function queryFor(model: RouteModel) {
  const filterFields = Object.entries(model.conventions?.filterFields ?? {});
  const expandPaths: string[] = [];
  const walk = (type: string, prefix: string, depth: number) => {
    for (const [name, child] of Object.entries(model.graph?.types[type] ?? {})) {
      const path = prefix ? `${prefix}.${name}` : name;
      expandPaths.push(path);
      if (depth < 3) walk(child, path, depth + 1);
    }
  };
  if (model.graph) walk(model.graph.root, '', 1);
  const scalar = fc.oneof(text, num, fc.boolean(), idOf('survey', 'order', 'location'), fc.constantFrom(Date.now(), 0, -1));
  const filter = filterFields.length
    ? fc
        .constantFrom(...filterFields)
        .chain(([field, ops]) =>
          fc
            .constantFrom(...ops)
            .chain((type) => (type === 'in' ? fc.array(scalar, { maxLength: 4 }) : scalar).map((value) => JSON.stringify({ field, type, value }))),
        )
    : fc.constant(undefined);
  const sortFields = model.conventions?.sortFields ?? [];
  const sort = sortFields.length
    ? fc.record({ field: fc.constantFrom(...sortFields), order: fc.constantFrom('asc', 'desc') }).map((x) => JSON.stringify(x))
    : fc.constant(undefined);
  return opt({
    page: fc.oneof(fc.integer({ min: 0, max: 3 }), fc.constantFrom(10 ** 6)).map(String),
    pageSize: fc.integer({ min: 1, max: 100 }).map(String),
    filters: fc.array(filter, { maxLength: 3 }).map((a) => a.filter((x): x is string => !!x)),
    sorts: fc.array(sort, { maxLength: 2 }).map((a) => a.filter((x): x is string => !!x)),
    ...(expandPaths.length ? { expand: fc.subarray(expandPaths, { maxLength: Math.min(3, expandPaths.length) }).map((a) => a.join(',')) } : {}),
  });
}

/** `surveys` for /v2/businesses/{business}/surveys/{survey}, `steps` for .../steps/{step}... */
const resourceOf = (template: string) =>
  template
    .split('/')
    .filter((p) => p && !p.startsWith('{'))
    .at(-1)!;

function pathOf(template: string): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'business' ? tenant.businessId : (ids[name] ?? ids[name.replace(/Id$/, '')] ?? 'x')));
}

function search(params: Record<string, string | string[]>): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) s.append(k, one);
  return s.toString() ? `?${s}` : '';
}

const expectClientAnswer = (status: number, answer: any, what: string) => {
  if (status >= 500 || (status >= 400 && !answer?.error?.code)) {
    throw new Error(`${what} -> ${status} ${JSON.stringify(answer).slice(0, 300)}`);
  }
};

describe('REST under generated input', () => {
  const writes = ROUTES.filter((r) => r.kind === 'create' || r.kind === 'update');
  it.each(writes.map((r) => [`${r.method} ${r.path}`, r]))('%s never answers 5xx', async (_name, route) => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty((route.kind === 'update' && UPDATES[resourceOf(route.path)]) || BODIES[resourceOf(route.path)], async (generated) => {
        const { status, body: answer } = await rest(server, route.method, pathOf(route.path), { tenant, body: generated });
        expectClientAnswer(status, answer, `${route.method} ${route.path} ${JSON.stringify(generated).slice(0, 300)}`);
        if (status < 300) accepted++;
      }),
      RUN,
    );
    // The generators must reach the domain code, not only the shape checks.
    expect(accepted).toBeGreaterThan(0);
  });

  const lists = ROUTES.filter((r) => r.kind === 'list');
  let schema: GraphQLSchema;
  beforeAll(async () => {
    schema = await buildAppSchema();
  });
  it.each(lists.map((r) => [`${r.method} ${r.path}`, r]))('%s never answers 5xx to any query string', async (_name, route) => {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(queryFor(routeModel(schema, route)), async (params) => {
        const url = `${pathOf(route.path)}${search(params)}`;
        const { status, body: answer } = await rest(server, 'GET', url, { tenant });
        expectClientAnswer(status, answer, `GET ${url}`);
        if (status < 300) accepted++;
      }),
      RUN,
    );
    expect(accepted).toBeGreaterThan(0);
  });
});
