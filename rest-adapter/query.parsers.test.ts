import { AppError } from '../src/shared/errors.js';
import { parseExpand, parseFilters, parsePage, parsePageSize, parseQuery, parseSorts, type ExpandGraph, type ListConventions } from './query.parsers.js';

const conv: ListConventions = {
  sortFields: ['createdAt', 'name'],
  filterFields: { createdAt: ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in'], name: ['eq', 'ne', 'in', 'contains'], enabled: ['eq', 'ne'] },
};
const graph: ExpandGraph = {
  root: 'Survey',
  types: {
    Survey: { steps: 'SurveyStep', business: 'Business' },
    SurveyStep: { metrics: 'StepMetrics', survey: 'Survey', business: 'Business' },
    StepMetrics: { metrics: 'Metric' },
    Metric: { business: 'Business', scale: 'MetricScale' },
    MetricScale: {},
    Business: {},
  },
};

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    return err as AppError;
  }
  throw new Error('expected a 400');
}

const LIST = ['page', 'pageSize', 'sorts', 'filters', 'expand'];

describe('page and pageSize', () => {
  it.each([
    [undefined, 0],
    ['0', 0],
    ['7', 7],
  ])('page %p -> %p', (raw, want) => expect(parsePage(raw)).toBe(want));
  it.each([
    [undefined, 20],
    ['1', 1],
    ['100', 100],
  ])('pageSize %p -> %p', (raw, want) => expect(parsePageSize(raw)).toBe(want));

  it.each([['-1'], ['1.5'], ['x'], [''], ['1e3']])('page %p is a 400 naming page with an example', (raw) => {
    const err = refusal(() => parsePage(raw));
    expect(err.status).toBe(400);
    expect(err.message).toMatch(/^page: /);
    expect(err.message).toContain('page=0');
    expect(err.details?.[0].field).toBe('page');
  });
  it.each([['0'], ['101'], ['abc'], ['-5']])('pageSize %p is a 400 naming pageSize with an example', (raw) => {
    const err = refusal(() => parsePageSize(raw));
    expect(err.message).toMatch(/^pageSize: /);
    expect(err.message).toContain('pageSize=20');
  });
  it('a repeated page is a 400', () => {
    expect(refusal(() => parseQuery(new URLSearchParams('page=1&page=2'), LIST, conv, graph)).message).toMatch(/^page: given 2 times/);
  });
});

describe('sorts', () => {
  it.each([
    [[], []],
    [['{"field":"createdAt","order":"desc"}'], [{ field: 'createdAt', order: 'desc' }]],
    [['{"field":"name"}'], [{ field: 'name', order: 'asc' }]],
    [
      ['{"field":"name","order":"asc"}', '{"field":"createdAt","order":"desc"}'],
      [
        { field: 'name', order: 'asc' },
        { field: 'createdAt', order: 'desc' },
      ],
    ],
  ])('%p', (raws, want) => expect(parseSorts(raws, conv)).toEqual(want));

  it.each([
    ['{bad json', /not valid JSON/],
    ['[1]', /must be a JSON object/],
    ['{"field":"colour"}', /unknown sort field "colour"; sortable fields: createdAt, name/],
    ['{"field":"name","order":"up"}', /unknown order "up"; orders: asc, desc/],
    ['{"field":"name","dir":"asc"}', /unknown key "dir"/],
  ])('%p is a 400 naming sorts with an example', (raw, pattern) => {
    const err = refusal(() => parseSorts([raw], conv));
    expect(err.message).toMatch(/^sorts: /);
    expect(err.message).toMatch(pattern);
    expect(err.message).toContain('sorts={"field":"createdAt","order":"desc"}');
  });
  it('the same field twice is a 400', () => expect(refusal(() => parseSorts(['{"field":"name"}', '{"field":"name"}'], conv)).message).toMatch(/sorted twice/));
});

describe('filters', () => {
  it.each([
    ['{"field":"createdAt","type":"gte","value":1700000000000}', { field: 'createdAt', type: 'gte', value: 1700000000000 }],
    ['{"field":"name","type":"eq","value":"A"}', { field: 'name', type: 'eq', value: 'A' }],
    ['{"field":"name","type":"contains","value":"caf"}', { field: 'name', type: 'contains', value: 'caf' }],
    ['{"field":"name","type":"in","value":["a","b"]}', { field: 'name', type: 'in', value: ['a', 'b'] }],
    ['{"field":"enabled","type":"ne","value":false}', { field: 'enabled', type: 'ne', value: false }],
  ])('%p', (raw, want) => expect(parseFilters([raw], conv)).toEqual([want]));

  it('several filters combine', () => {
    expect(parseFilters(['{"field":"createdAt","type":"gte","value":1}', '{"field":"createdAt","type":"lt","value":2}'], conv)).toHaveLength(2);
  });

  it.each([
    ['nope', /not valid JSON/],
    ['"text"', /must be a JSON object/],
    ['{"field":"colour","type":"eq","value":1}', /unknown filter field "colour"; filterable fields: createdAt, name, enabled/],
    ['{"field":"name","type":"like","value":"a"}', /unknown filter type "like" for "name"; types: eq, ne, in, contains/],
    ['{"field":"enabled","type":"gt","value":true}', /unknown filter type "gt"/],
    ['{"field":"name","type":"in","value":"a"}', /type "in" takes an array/],
    ['{"field":"name","type":"eq","value":["a"]}', /must be a string, a number/],
    ['{"field":"name","type":"eq"}', /must be a string, a number/],
    ['{"field":"name","type":"eq","value":{"a":1}}', /must be a string, a number/],
    ['{"field":"name","type":"eq","value":"a","extra":1}', /unknown key "extra"/],
  ])('%p is a 400 naming filters with an example', (raw, pattern) => {
    const err = refusal(() => parseFilters([raw], conv));
    expect(err.message).toMatch(/^filters: /);
    expect(err.message).toMatch(pattern);
    expect(err.message).toMatch(/Example of a correct value: filters=\{/);
    expect(err.details?.[0].field).toBe('filters');
  });
  it('the same field and type twice is a 400', () => {
    expect(refusal(() => parseFilters(['{"field":"name","type":"eq","value":"a"}', '{"field":"name","type":"eq","value":"b"}'], conv)).message).toMatch(
      /given twice/,
    );
  });
});

describe('expand', () => {
  it.each([
    [[], []],
    [[''], []],
    [['steps'], ['steps']],
    [['steps.metrics.metrics'], ['steps', 'steps.metrics', 'steps.metrics.metrics']],
    [['business, steps'], ['business', 'steps']],
    [
      ['steps', 'steps.survey'],
      ['steps', 'steps.survey'],
    ],
    [['steps.survey.steps.metrics'], ['steps', 'steps.survey', 'steps.survey.steps', 'steps.survey.steps.metrics']],
  ])('%p -> %p', (raws, want) => expect(parseExpand(raws, graph)).toEqual(want));

  it.each([
    ['colour', /unknown path "colour": "colour" is not expandable; expandable there: steps, business/],
    ['steps.colour', /"colour" is not expandable on "steps"; expandable there: metrics, survey, business/],
    ['name', /unknown path "name"/],
    ['steps.survey.steps.metrics.metrics', /5 levels deep; the maximum is 4/],
    ['steps.metrics.metrics.scale.min', /5 levels deep/],
  ])('%p is a 400 naming expand with an example', (raw, pattern) => {
    const err = refusal(() => parseExpand([raw], graph));
    expect(err.message).toMatch(/^expand: /);
    expect(err.message).toMatch(pattern);
    expect(err.message).toContain('expand=steps');
  });
});

describe('parseQuery', () => {
  it('defaults', () => {
    expect(parseQuery(new URLSearchParams(''), LIST, conv, graph)).toEqual({ page: 0, pageSize: 20, sorts: [], filters: [], expand: [] });
  });
  it('everything at once', () => {
    const q = parseQuery(
      new URLSearchParams('page=2&pageSize=5&expand=steps&sorts={"field":"name"}&filters={"field":"name","type":"eq","value":"x"}'),
      LIST,
      conv,
      graph,
    );
    expect(q).toEqual({
      page: 2,
      pageSize: 5,
      sorts: [{ field: 'name', order: 'asc' }],
      filters: [{ field: 'name', type: 'eq', value: 'x' }],
      expand: ['steps'],
    });
  });
  it.each([
    ['limit=5', LIST, /^limit: unknown query parameter "limit"; this route takes page, pageSize, sorts, filters, expand/],
    ['page=1', ['expand'], /^page: unknown query parameter "page"; this route takes expand/],
    ['expand=steps', [], /^expand: unknown query parameter "expand"; this route takes none/],
  ])('%p is refused', (query, allowed, pattern) => {
    expect(refusal(() => parseQuery(new URLSearchParams(query), allowed, conv, graph)).message).toMatch(pattern);
  });
});
