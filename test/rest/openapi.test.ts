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
      expect({ route: `${route.method} ${route.path}`, has: Boolean(doc.paths[route.path]?.[route.method.toLowerCase()]) }).toEqual({
        route: `${route.method} ${route.path}`,
        has: true,
      });
      expect(Object.keys(doc.paths[route.path][route.method.toLowerCase()].responses)).toContain(String(route.status));
    }
    const operations = Object.values(doc.paths).flatMap((p: any) => Object.keys(p));
    // The route table, plus the surface outside it: seven OAuth operations, the order webhook and the QR code.
    expect(operations).toHaveLength(ROUTES.length + 9);
    expect(doc.paths['/v1/businesses/{business}/locations'].get.deprecated).toBe(true);
    expect(doc.components.schemas.Survey.properties.steps.items.oneOf).toEqual([
      expect.objectContaining({ type: 'string' }),
      { $ref: '#/components/schemas/SurveyStep' },
    ]);
    expect(doc.components.schemas.CreateSurveyInput.required).toEqual(['name']);
    const listParams = doc.paths['/v2/businesses/{business}/surveys'].get.parameters.map((p: any) => p.name);
    expect(listParams).toEqual(['business', 'page', 'pageSize', 'sorts', 'filters', 'expand']);
  });
});

describe('the whole HTTP surface in /openapi.json', () => {
  let doc: any;
  beforeAll(async () => {
    doc = await (await fetch(`${server.url}/openapi.json`)).json();
  });

  it('documents the OAuth endpoints, the order webhook and the QR route', () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/oauth/authorize',
        '/oauth/token',
        '/oauth/revoke',
        '/oauth/introspect',
        '/.well-known/oauth-authorization-server',
        '/webhooks/custom/{business}',
        '/v2/businesses/{business}/surveys/{survey}/qr',
      ]),
    );
    const token = doc.paths['/oauth/token'].post;
    expect(Object.keys(token.requestBody.content)).toEqual(['application/json', 'application/x-www-form-urlencoded']);
    expect(token.responses['401'].headers['WWW-Authenticate']).toBeDefined();
    const webhook = doc.paths['/webhooks/custom/{business}'].post;
    expect(webhook.security).toEqual([{ webhookSecret: [] }]);
    expect(webhook.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CustomOrderWebhookBody' });
    const body = doc.components.schemas.CustomOrderWebhookBody;
    expect(body.required).toEqual(expect.arrayContaining(['externalOrderId', 'total', 'currency', 'metadata']));
    expect(body.properties.payment).toEqual(expect.objectContaining({ type: 'boolean' }));
    expect(body.properties.status).toBeUndefined();
    expect(Object.keys(webhook.responses)).toEqual(['200', '400', '401', '413', '415']);
    expect(Object.keys(doc.paths['/v2/businesses/{business}/surveys/{survey}/qr'].get.responses['200'].content)).toEqual(['image/svg+xml', 'image/png']);
  });

  it('has security schemes: OAuth2 authorization code and client credentials, the webhook bearer secret; each route names its scope', () => {
    const { oauth2, webhookSecret } = doc.components.securitySchemes;
    expect(Object.keys(oauth2.flows)).toEqual(['authorizationCode', 'clientCredentials']);
    expect(oauth2.flows.authorizationCode).toMatchObject({ authorizationUrl: '/oauth/authorize', tokenUrl: '/oauth/token' });
    expect(oauth2.description).toMatch(/PKCE/);
    expect(Object.keys(oauth2.flows.clientCredentials.scopes)).toContain('members:write');
    expect(webhookSecret).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.paths['/v2/businesses/{business}/surveys'].get.security).toEqual([{ oauth2: ['surveys:read'] }, { bearerAuth: [] }]);
    expect(doc.paths['/v2/businesses/{business}/members/{member}'].patch.security[0]).toEqual({ oauth2: ['members:write'] });
    const unscoped = Object.entries(doc.paths).flatMap(([path, ops]: [string, any]) =>
      Object.entries(ops)
        .filter(([, op]: [string, any]) => path.startsWith('/v2/') && op.security?.[0]?.oauth2?.length === 0)
        .map(([m]) => `${m} ${path}`),
    );
    expect(unscoped).toEqual([]);
  });

  it('lists carry links to the next and previous page; 401 answers WWW-Authenticate', () => {
    const list = doc.paths['/v2/businesses/{business}/surveys'].get.responses['200'].content['application/json'].schema;
    expect(list.required).toContain('links');
    expect(list.properties.links.properties).toEqual({ next: { type: ['string', 'null'] }, previous: { type: ['string', 'null'] } });
    expect(doc.components.responses.Unauthorized.headers['WWW-Authenticate']).toBeDefined();
  });
});

describe('every 401 names its scheme (WWW-Authenticate)', () => {
  it('REST, the QR route, the order webhook and /oauth/me: Bearer; the token endpoint: Basic', async () => {
    const bus = 'bus_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const answers = {
      rest: await fetch(`${server.url}/v2/businesses/${bus}/surveys`),
      restBadToken: await fetch(`${server.url}/v2/businesses/${bus}/surveys`, { headers: { authorization: 'Bearer not.a.jwt' } }),
      qr: await fetch(`${server.url}/v2/businesses/${bus}/surveys/sur_01ARZ3NDEKTSV4RRFFQ69G5FAV/qr`),
      webhook: await fetch(`${server.url}/webhooks/custom/${bus}`, {
        method: 'POST',
        headers: { authorization: 'Bearer whsec_wrong', 'content-type': 'application/json' },
        body: '{}',
      }),
      me: await fetch(`${server.url}/oauth/me`),
      token: await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('nobody:wrong').toString('base64')}`, 'content-type': 'application/json' },
        body: '{"grantType":"client_credentials"}',
      }),
    };
    const seen = Object.fromEntries(Object.entries(answers).map(([door, res]) => [door, [res.status, res.headers.get('www-authenticate')]]));
    expect(seen).toEqual({
      rest: [401, 'Bearer'],
      restBadToken: [401, expect.stringMatching(/^Bearer error="invalid_token", error_description="[^"]+"$/)],
      qr: [401, 'Bearer'],
      webhook: [401, 'Bearer'],
      me: [401, expect.stringMatching(/^Bearer/)],
      token: [401, expect.stringMatching(/^Basic/)],
    });
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
