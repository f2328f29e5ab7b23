import 'reflect-metadata';
import { Kind, parse, print, validate, type DefinitionNode, type OperationDefinitionNode } from 'graphql';
import { buildAppSchema } from '../../src/graphql/schema.js';
import { costOf, DEFAULT_LIMITS, queryDepthRule } from '../../src/graphql/limits.js';
import { demoCommand } from '../../src/cli/demo.command.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { client } from '../helpers/graphql.js';
import { codeBlocks, DOC_FILES, fillPlaceholders, readDoc } from '../helpers/docs.js';

const isOperation = (d: DefinitionNode): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION;

/** Each operation of a ```graphql block on its own (a block may show several, even anonymous ones), with its fragments. */
function operations(source: string): { name: string; text: string; variables: string[] }[] {
  const document = parse(source);
  const fragments = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
  return document.definitions.filter(isOperation).map((op, i) => ({
    name: op.name?.value ?? `#${i}`,
    text: print({ kind: Kind.DOCUMENT, definitions: [op, ...fragments] }),
    variables: (op.variableDefinitions ?? []).map((v) => v.variable.name.value),
  }));
}

const examples = DOC_FILES.map((file) => ({ file, text: readDoc(file), blocks: codeBlocks(readDoc(file), 'graphql') }));

/** Every ```graphql block of README.md and docs/*.md stays valid against the schema (and within the limits). */
describe.each(examples.filter((e) => e.blocks.length).map((e) => [e.file, e] as const))('%s examples', (file, { blocks }) => {
  if (file === 'docs/graphql.md' || file === 'README.md') it('has examples', () => expect(blocks.length).toBeGreaterThanOrEqual(3));

  it.each(blocks.flatMap((b, i) => operations(b).map((op) => [`${i} ${op.name}`, op.text])))('example %s validates', async (_name, source) => {
    const schema = await buildAppSchema();
    const document = parse(source);
    const errors = validate(schema, document);
    expect(errors.map((e) => e.message)).toEqual([]);
    expect(validate(schema, document, [queryDepthRule()]).map((e) => e.message)).toEqual([]);
    for (const operation of document.definitions.filter(isOperation)) {
      expect(costOf(schema, document, operation)).toBeLessThanOrEqual(DEFAULT_LIMITS.maxCost);
    }
  });
});

/**
 * And each runs, as a reader would run it: in reading order, on what `npm run admin -- demo` printed, with the
 * variables the text gives and a token minted as the text says (README: the scopes its curl asks for; the guides:
 * docs/graphql.md's client-credentials request without a scope, so every scope).
 */
describe('every GraphQL example runs', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server?.stop());

  async function mint(clientId: string, clientSecret: string, scope?: string): Promise<Record<string, string>> {
    const res = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grantType: 'client_credentials', clientId, clientSecret, scope }),
    });
    const body = await res.json();
    expect(res.status).toBe(200);
    return { authorization: `Bearer ${body.accessToken}` };
  }

  /** What the demo prints, plus the survey the guides' submission example answers (a rating, an nps, a choice, a text step). */
  async function world() {
    const demo = (await demoCommand.run({}, server.orm)) as {
      business: { id: string };
      survey: { id: string; metrics: { id: string }[] };
      credential: { clientId: string; clientSecret: string };
    };
    const b = demo.business.id;
    const [food, service] = demo.survey.metrics.map((m) => m.id);
    const setup = client(server, await mint(demo.credential.clientId, demo.credential.clientSecret));
    const survey = (await setup.data('mutation($b: ID!) { createSurvey(business: $b, input: {name: "After your visit", status: active}) { id } }', { b }))
      .createSurvey.id;
    const step = async (input: object) =>
      (
        await setup.data('mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { id } }', {
          b,
          s: survey,
          i: input,
        })
      ).createSurveyStep.id as string;
    const steps = {
      step_rating: await step({ type: 'metrics', required: true, metrics: { metrics: [food, service] } }),
      step_nps: await step({ type: 'nps' }),
      step_choice: await step({ type: 'choice', content: { choices: ['Dine-in', 'Takeaway'] } }),
      step_text: await step({ type: 'text' }),
    };
    // docs/webhooks.md's endpoint and one of its deliveries (the test event: recorded and queued at once).
    const webhook = (
      await setup.data('mutation($b: ID!) { createWebhook(business: $b, input: {url: "https://hooks.example.com/feedback", events: ["*"]}) { id } }', { b })
    ).createWebhook.id as string;
    const delivery = (await setup.data('mutation($b: ID!, $w: ID!) { testWebhook(business: $b, id: $w) { id } }', { b, w: webhook })).testWebhook.id as string;
    // docs/oauth.md's credential whose secret is rotated (not the demo's, whose token runs the examples).
    const credential = (
      await setup.data(
        'mutation($b: ID!) { createCredential(business: $b, input: {name: "Till", validRedirectUris: ["https://till.example.com/cb"]}) { id } }',
        { b },
      )
    ).createCredential.id as string;
    const placeholders = {
      'wh_...': webhook,
      'whd_...': delivery,
      'cred_...': credential,
      'bus_...': b,
      'sur_...': survey,
      'mtr_...': [food, service],
      'step_...': steps.step_text,
      mtr_food: food,
      mtr_service: service,
      ...steps,
    };
    return { demo, placeholders };
  }

  /** The Variables the text shows (README's Sandbox section), if any. */
  const variablesOf = (text: string) => JSON.parse(/Variables[\s\S]*?```json\n([\s\S]*?)```/.exec(text)?.[1] ?? '{}') as Record<string, unknown>;
  /** The scopes the README's curl asks for when it mints its token. */
  const readmeScopes = (text: string) => /"scope":"([^"]+)"/.exec(text)![1];

  it.each(examples.filter((e) => e.blocks.length).map((e) => [e.file, e] as const))('%s', async (file, { text, blocks }) => {
    const { demo, placeholders } = await world();
    const headers = await mint(demo.credential.clientId, demo.credential.clientSecret, file === 'README.md' ? readmeScopes(text) : undefined);
    const variables = JSON.parse(fillPlaceholders(JSON.stringify(variablesOf(text)), placeholders));
    for (const block of blocks) {
      for (const op of operations(fillPlaceholders(block, placeholders))) {
        const given = Object.fromEntries(op.variables.map((v) => [v, variables[v]]));
        const { status, body } = await server.graphql(op.text, given, headers);
        expect({ operation: op.name, status, errors: body.errors }).toEqual({ operation: op.name, status: 200, errors: undefined });
        expect(body.data).toEqual(expect.any(Object));
      }
    }
  });
});
