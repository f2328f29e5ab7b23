import { Validator } from '@seriousme/openapi-schema-validator';
import { useTestServer, type TestServer } from '../helpers/server.js';
import { ROUTES } from '../../rest-adapter/route.table.js';

let server: TestServer;
useTestServer((s) => (server = s));

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1 document listing every route of the table', async () => {
    const res = await fetch(`${server.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const doc = await res.json();
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    for (const route of ROUTES) {
      expect({ route: `${route.method} ${route.path}`, has: Boolean(doc.paths[route.path]?.[route.method.toLowerCase()]) }).toEqual({ route: `${route.method} ${route.path}`, has: true });
      expect(Object.keys(doc.paths[route.path][route.method.toLowerCase()].responses)).toContain(String(route.status));
    }
    const operations = Object.values(doc.paths).flatMap((p: any) => Object.keys(p));
    expect(operations).toHaveLength(ROUTES.length);
    expect(doc.paths['/v1/businesses/{business}/locations'].get.deprecated).toBe(true);
    expect(doc.components.schemas.Survey.properties.steps.items.oneOf).toEqual([expect.objectContaining({ type: 'string' }), { $ref: '#/components/schemas/SurveyStep' }]);
    expect(doc.components.schemas.CreateSurveyInput.required).toEqual(['name']);
    const listParams = doc.paths['/v2/businesses/{business}/surveys'].get.parameters.map((p: any) => p.name);
    expect(listParams).toEqual(['business', 'page', 'pageSize', 'sorts', 'filters', 'expand']);
  });
});

describe('GET /docs', () => {
  it('serves Swagger UI from the package: every asset local and loadable, no CDN', async () => {
    const res = await fetch(`${server.url}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const html = await res.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThanOrEqual(4);
    for (const ref of refs) {
      expect(ref).toMatch(/^\/docs\//); // same origin: loads with no internet
      const asset = await fetch(`${server.url}${ref}`);
      expect({ ref, status: asset.status }).toEqual({ ref, status: 200 });
      expect((await asset.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    expect(html).not.toMatch(/https?:\/\//);
    const init = await (await fetch(`${server.url}/docs/init.js`)).text();
    expect(init).toContain("url: '/openapi.json'");
    expect(init).not.toMatch(/https?:\/\//);
    expect((await fetch(`${server.url}/docs/assets/package.json`)).status).toBe(404);
    expect((await fetch(`${server.url}/docs/assets/..%2F..%2Fpackage.json`)).status).toBe(404);
  });
});
