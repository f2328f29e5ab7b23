import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { demoCommand } from '../src/cli/demo.command.js';
import { createCredentialCommand } from '../src/cli/credentials.command.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { codeBlocks, DOC_FILES, fillPlaceholders, readDoc } from './helpers/docs.js';
import { authorizeCode, pkcePair } from './oauth/oauth-helpers.js';

/**
 * The curl examples of README.md and docs/*.md, run for real with bash, curl and jq against the test server, as a
 * partner would paste them: the placeholders filled from what `npm run admin -- demo` prints (and, for docs/oauth.md,
 * a credential made as its section 1 says and codes from its authorization page), `BASE`/`AUTH` pointed at the test
 * server. Each curl must answer the status its comment shows (`# 201 ...`, `# 405 ...`), or a 2xx when none is shown.
 */
let server: TestServer;
let values: Record<string, string | string[]>;
let prelude: string;

beforeAll(async () => {
  server = await startTestServer();
  const demo = (await demoCommand.run({}, server.orm)) as {
    user: { email: string; password: string };
    business: { id: string };
    survey: { id: string; metrics: { id: string }[] };
    credential: { clientId: string; clientSecret: string };
    customIntegration: { secret: string };
  };
  const post = async (p: string, body: object, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    expect(res.status).toBeLessThan(300);
    return res.json();
  };
  const { data: app } = (await createCredentialCommand.run(
    { business: demo.business.id, name: 'My App', 'redirect-uri': ['https://app.example.com/callback'] },
    server.orm,
  )) as { data: { clientId: string; clientSecret: string } };
  const partner = { clientId: app.clientId, redirectUri: 'https://app.example.com/callback', ...demo.user };
  // A code as the interface document asks for it (no challenge), or with the PKCE challenge of the docs' VERIFIER.
  const pkce = pkcePair();
  const authorized = async (challenge: string) =>
    (
      await authorizeCode(server, partner, {
        scope: 'surveys:read,submissions:read',
        code_challenge: challenge,
        code_challenge_method: challenge ? 'S256' : '',
      })
    ).searchParams.get('code')!;
  const code = () => authorized(pkce.challenge);
  const tokens = await post('/oauth/token', {
    grantType: 'authorization_code',
    clientId: app.clientId,
    clientSecret: app.clientSecret,
    code: await code(),
    redirectUri: partner.redirectUri,
    codeVerifier: pkce.verifier,
  });
  const all = await post('/oauth/token', { grantType: 'client_credentials', clientId: demo.credential.clientId, clientSecret: demo.credential.clientSecret });
  const order = await post(
    '/graphql',
    {
      query: 'mutation($b: ID!) { createOrder(business: $b, input: {externalOrderId: "A-1", total: 10, currency: "PKR"}) { id } }',
      variables: { b: demo.business.id },
    },
    { authorization: `Bearer ${all.accessToken}` },
  );
  const graphql = (query: string, variables: object) => post('/graphql', { query, variables }, { authorization: `Bearer ${all.accessToken}` });
  // docs/webhooks.md's endpoint and one of its deliveries (the test event: recorded and queued at once).
  const webhook = (
    await graphql('mutation($b: ID!) { createWebhook(business: $b, input: {url: "https://hooks.example.com/feedback", events: ["*"]}) { id } }', {
      b: demo.business.id,
    })
  ).data.createWebhook.id;
  const delivery = (await graphql('mutation($b: ID!, $w: ID!) { testWebhook(business: $b, id: $w) { id } }', { b: demo.business.id, w: webhook })).data
    .testWebhook.id;
  values = {
    'wh_...': webhook,
    'whd_...': delivery,
    'http://localhost:4000': server.url,
    'bus_...': demo.business.id,
    'sur_...': demo.survey.id,
    'mtr_01K...': demo.survey.metrics.map((m) => m.id),
    'ord_01K...': order.data.createOrder.id,
    '<clientId>': demo.credential.clientId,
    '<clientSecret>': demo.credential.clientSecret,
    '<webhook secret>': demo.customIntegration.secret,
    'TOKEN=...': `TOKEN=${all.accessToken}`,
    CLIENT_ID: app.clientId,
    CLIENT_SECRET: app.clientSecret,
    // docs/oauth.md exchanges a code as the interface document does, then with PKCE in JSON and in a form: a code works once.
    'ac_...': [await authorized(''), await code(), await code()],
    VERIFIER: pkce.verifier,
    'rt_...': tokens.refreshToken,
  };
  prelude = `set -euo pipefail\nAUTH=${server.url}\nACCESS_TOKEN=${tokens.accessToken}\n`;
});
afterAll(() => server?.stop());

/** The status each curl of a script should answer, in order: the one its comment shows, else any 2xx (null). */
function expectedStatuses(script: string): (number | null)[] {
  const expected: (number | null)[] = [];
  let open = false;
  for (const line of script.split('\n')) {
    const [code, comment = ''] = line.split(/(?:^|\s)#(?=\s)/, 2);
    if (/(^|[\s($])curl\s/.test(code)) {
      expected.push(null);
      open = true;
    }
    const shown = /^\s*(\d{3})\b/.exec(comment);
    if (shown && open) {
      expected[expected.length - 1] = Number(shown[1]);
      open = false;
    }
  }
  return expected;
}

/** Runs a script with `curl` recording each response's status line; returns the statuses in order and the output. */
function run(script: string): Promise<{ statuses: number[]; output: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docs-curl-'));
  const record = `curl() { command curl -D "${dir}/$(date +%s%N)" "$@"; }\n`;
  return new Promise((resolve) => {
    execFile('bash', ['-c', prelude + record + script], { cwd: dir, timeout: 60_000 }, (error, stdout, stderr) => {
      const statuses = fs
        .readdirSync(dir)
        .sort()
        .map((f) => Number(/^HTTP\/[\d.]+ (\d{3})/m.exec(fs.readFileSync(path.join(dir, f), 'utf8'))?.[1]));
      fs.rmSync(dir, { recursive: true, force: true });
      resolve({ statuses, output: `${error ? `${error.message}\n` : ''}${stdout}\n${stderr}` });
    });
  });
}

// Every shell block but those that install or start things (npm ...): the curl examples and the variables they use.
const scripts = DOC_FILES.map((file) => ({ file, blocks: codeBlocks(readDoc(file), 'sh').filter((b) => !/\bnpm\s/.test(b)) })).filter((f) =>
  f.blocks.some((b) => /\bcurl\s/.test(b)),
);

it('the docs have curl examples', () => {
  expect(scripts.map((s) => s.file)).toEqual(expect.arrayContaining(['README.md', 'docs/oauth.md', 'docs/rest.md']));
});

it.each(scripts.map((s) => [s.file, s.blocks] as const))('the curl examples of %s run and answer as shown', async (_file, blocks) => {
  const script = fillPlaceholders(blocks.join('\n'), values);
  const expected = expectedStatuses(script);
  const { statuses, output } = await run(script);
  const ok = statuses.length === expected.length && statuses.every((s, i) => (expected[i] === null ? s >= 200 && s < 300 : s === expected[i]));
  if (!ok) throw new Error(`expected statuses ${JSON.stringify(expected.map((e) => e ?? '2xx'))}, got ${JSON.stringify(statuses)}\n${output}`);
});
