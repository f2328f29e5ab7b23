import 'reflect-metadata';
import { buildAppSchema } from '../src/graphql/schema.js';
import { DocumentCache, documentText } from './document.cache.js';
import { ROUTES } from './route.table.js';
import { routeModel } from './schema.model.js';
import { flatten } from './selection.builder.js';

const route = (method: string, path: string) => ROUTES.find((r) => r.method === method && r.path === path)!;
const SURVEYS = '/v2/businesses/{business}/surveys';

describe('documents built from the schema', () => {
  it('every route has a valid document, without and with each top-level expansion', async () => {
    const schema = await buildAppSchema();
    const cache = new DocumentCache(schema);
    for (const r of ROUTES) {
      const model = routeModel(schema, r);
      expect(() => cache.get(model, [], `${r.method} ${r.path}`)).not.toThrow();
      for (const field of Object.keys(model.graph?.types[model.graph.root] ?? {})) {
        expect(() => cache.get(model, [field], `${r.method} ${r.path}`)).not.toThrow();
      }
    }
  });

  it('is parsed and validated once per (route, expand): the same document object comes back', async () => {
    const schema = await buildAppSchema();
    const cache = new DocumentCache(schema);
    const model = routeModel(schema, route('GET', SURVEYS));
    const a = cache.get(model, ['steps', 'steps.metrics', 'steps.metrics.metrics'], 'list');
    const b = cache.get(model, ['steps', 'steps.metrics', 'steps.metrics.metrics'], 'list');
    const c = cache.get(model, [], 'list');
    expect(b).toBe(a);
    expect(c).not.toBe(a);
    expect(cache.size).toBe(2);
  });

  it('ids for unexpanded relations, full objects for expanded ones; business and parents filled without asking', async () => {
    const schema = await buildAppSchema();
    const model = routeModel(schema, route('GET', SURVEYS));
    const plain = documentText(model, []);
    expect(plain.text).toContain('data { id object createdAt updatedAt name description status closingText reviewUrl languages url steps { id } }');
    expect(plain.text).not.toContain('business {');
    const deep = documentText(model, ['steps', 'steps.metrics', 'steps.metrics.metrics']);
    expect(deep.text).toMatch(/steps \{ id object .* metrics \{ metrics \{ id object createdAt updatedAt name description scale \{ min max \} \} \} \}/);
    expect(deep.text).not.toMatch(/survey \{ id \}/);
    const answer = { id: 'sur_1', steps: [{ id: 'step_1', metrics: { metrics: [{ id: 'mtr_1', scale: { min: 1, max: 5 } }] } }] };
    expect(flatten(answer, deep.plan!, { business: 'bus_1' })).toEqual({
      id: 'sur_1',
      business: 'bus_1',
      steps: [{ id: 'step_1', business: 'bus_1', survey: 'sur_1', metrics: { metrics: [{ id: 'mtr_1', business: 'bus_1', scale: { min: 1, max: 5 } }] } }],
    });
    expect(flatten({ id: 'sur_2', steps: [{ id: 'step_9' }] }, plain.plan!, { business: 'bus_1' })).toEqual({
      id: 'sur_2',
      business: 'bus_1',
      steps: ['step_9'],
    });
  });
});
