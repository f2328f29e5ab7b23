import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import openapiTS, { astToString } from 'openapi-typescript';
import createClient from 'openapi-fetch';
import { useTenantServer } from '../helpers/auth.js';

/**
 * A partner's view of /openapi.json: a typed client generated from the served document (openapi-typescript), compiled
 * against calls a partner would write (TypeScript itself, so a wrong path, parameter or body is a compile error), then
 * those calls made over HTTP with openapi-fetch. Generated at test time, so the document can never go stale against it.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const fx = useTenantServer({ tenant: { businessName: 'Typed Cafe' } });
let dir: string;
beforeAll(() => {
  // Inside the repository (test-results/ is ignored by git), so the generated file resolves openapi-fetch.
  fs.mkdirSync(path.join(ROOT, 'test-results'), { recursive: true });
  dir = fs.mkdtempSync(path.join(ROOT, 'test-results', 'openapi-client-'));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** What a partner writes: three calls, each checked by the compiler against the generated types. */
const CALLS = `
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function run(baseUrl: string, clientId: string, clientSecret: string, business: string) {
  const api = createClient<paths>({ baseUrl });
  const token = await api.POST('/oauth/token', { body: { grantType: 'client_credentials', clientId, clientSecret, scope: 'surveys:read metrics:write' } });
  if (!token.data || !('accessToken' in token.data)) throw new Error('no token');
  const headers = { authorization: \`Bearer \${token.data.accessToken}\` };
  const metric = await api.POST('/v2/businesses/{business}/metrics', { params: { path: { business } }, headers, body: { name: 'Taste', scale: { min: 1, max: 5 } } });
  const name: string | undefined = metric.data?.data.name;
  const surveys = await api.GET('/v2/businesses/{business}/surveys', { params: { path: { business }, query: { pageSize: 5 } }, headers });
  const next: string | null | undefined = surveys.data?.links.next;
  // @ts-expect-error: no such route in the document
  await api.GET('/v2/businesses/{business}/nothing', { params: { path: { business } } });
  // @ts-expect-error: a metric needs a name
  await api.POST('/v2/businesses/{business}/metrics', { params: { path: { business } }, body: { description: 'x' } });
  return { token: token.response.status, metric: metric.response.status, name, surveys: surveys.response.status, total: surveys.data?.total, next };
}
`;

it('generates a typed client from the served document, which compiles and calls three routes', async () => {
  const document = await (await fetch(`${fx.server.url}/openapi.json`)).json();
  const types = astToString(await openapiTS(document));
  fs.writeFileSync(path.join(dir, 'api.d.ts'), types);
  fs.writeFileSync(path.join(dir, 'calls.ts'), CALLS);

  const program = ts.createProgram([path.join(dir, 'calls.ts')], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
    types: [],
  });
  const diagnostics = ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file?.fileName.replace(dir, '') ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
  expect(diagnostics).toEqual([]);

  // The same calls, run: openapi-fetch is plain JavaScript at run time (the types above are what a partner compiles).
  type Call = (path: string, init: object) => Promise<{ data?: any; response: Response }>;
  const api = createClient({ baseUrl: fx.server.url }) as unknown as { GET: Call; POST: Call };
  const token = await api.POST('/oauth/token', {
    body: { grantType: 'client_credentials', clientId: fx.tenant.clientId, clientSecret: fx.tenant.clientSecret, scope: 'surveys:read metrics:write' },
  });
  expect(token.response.status).toBe(200);
  const headers = { authorization: `Bearer ${token.data.accessToken}` };
  const metric = await api.POST('/v2/businesses/{business}/metrics', {
    params: { path: { business: fx.tenant.businessId } },
    headers,
    body: { name: 'Taste', scale: { min: 1, max: 5 } },
  });
  expect([metric.response.status, metric.data.data.name]).toEqual([201, 'Taste']);
  const surveys = await api.GET('/v2/businesses/{business}/surveys', { params: { path: { business: fx.tenant.businessId }, query: { pageSize: 5 } }, headers });
  expect(surveys.response.status).toBe(200);
  expect(surveys.data).toMatchObject({ object: 'list', total: 0, links: { next: null, previous: null } });
});
