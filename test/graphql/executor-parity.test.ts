import 'reflect-metadata';
import fs from 'node:fs';
import path from 'node:path';
import {
  execute,
  getNamedType,
  GraphQLError,
  isEnumType,
  isLeafType,
  isObjectType,
  Kind,
  parse,
  print,
  validate,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import { createContextFactory } from '../../src/kit/graphql/context.js';
import { createLogger } from '../../src/http/logger.js';
import { formatError } from '../../src/graphql/errors.js';
import { CompiledExecutor, leavesAsResolved } from '../../src/graphql/executor.js';
import { ROUTES } from '../../rest-adapter/route.table.js';
import { routeModel } from '../../rest-adapter/schema.model.js';
import { documentText } from '../../rest-adapter/document.cache.js';
import { codeBlocks, DOC_FILES, readDoc } from '../helpers/docs.js';
import { createTenant, type Tenant, tokenServiceFor } from '../helpers/auth.js';
import { seedSurveys } from '../helpers/seed.js';
import { useTestServer, type TestServer } from '../helpers/server.js';

/**
 * /graphql and the REST adapter run queries through compiled functions (src/graphql/executor.ts). This holds them to
 * graphql-js: every query document the tests, the docs and the REST routes use, plus one generated per root query
 * field selecting everything three levels deep, is run by both executors, as four callers (every scope, no token,
 * another business's token, a token without the scope), and the answers must be the same: data byte for byte as
 * JSON, errors with the same message, path, locations and extensions, before and after the service's formatError.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return sourceFiles(rel);
    return /\.(ts|js)$/.test(e.name) && !e.name.includes('executor-parity') ? [rel] : [];
  });
}

const operationsOf = (document: DocumentNode) => document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);

/** Each query operation of a text, alone with the document's fragments; texts that are not GraphQL are skipped. */
function queries(text: string): string[] {
  let document: DocumentNode;
  try {
    document = parse(text);
  } catch {
    return [];
  }
  const fragments = document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION);
  return operationsOf(document)
    .filter((op) => op.operation === 'query')
    .map((op) => print({ kind: Kind.DOCUMENT, definitions: [op, ...fragments] }));
}

/** String literals of the test sources that are GraphQL queries (without interpolations, which need the test's values). */
function testQueries(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles('test')) {
    const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
    for (const [, body] of text.matchAll(/`([^`$]*)`|'((?:query|\{)[^'\n]*)'/g)) if (body) found.push(...queries(body));
    for (const [, body] of text.matchAll(/'((?:query|\{)[^'\n]*)'/g)) found.push(...queries(body));
  }
  return found;
}

/** One query per root field: its arguments as variables, every field to three levels (fields with arguments left out). */
function generatedQueries(schema: GraphQLSchema): string[] {
  const selection = (type: GraphQLObjectType, depth: number): string => {
    const fields = Object.values(type.getFields()).filter((f) => !f.args.length);
    const parts = fields.flatMap((f) => {
      const named = getNamedType(f.type);
      if (isLeafType(named)) return [f.name];
      if (depth <= 1 || !isObjectType(named)) return [];
      const inner = selection(named, depth - 1);
      return inner ? [`${f.name} { ${inner} }`] : [];
    });
    return parts.join(' ');
  };
  return Object.values(schema.getQueryType()!.getFields()).map((field: GraphQLField<unknown, unknown>) => {
    const defs = field.args.map((a) => `$${a.name}: ${a.type.toString()}`);
    const args = field.args.map((a) => `${a.name}: $${a.name}`);
    const named = getNamedType(field.type);
    const body = isObjectType(named) ? ` { ${selection(named, 4)} }` : '';
    return `query${defs.length ? `(${defs.join(', ')})` : ''} { ${field.name}${args.length ? `(${args.join(', ')})` : ''}${body} }`;
  });
}

function restQueries(schema: GraphQLSchema): string[] {
  return ROUTES.filter((r) => r.kind === 'list' || r.kind === 'get').flatMap((route) => {
    const model = routeModel(schema, route);
    const expandable = model.graph && model.itemType ? Object.keys(model.graph.types[model.itemType.name] ?? {}) : [];
    return [[], expandable, ...expandable.map((e) => [e])].map((expand) => documentText(model, expand).text);
  });
}

let server: TestServer;
let owner: Tenant;
let stranger: Tenant;
let unscoped: Tenant;
let ids: Record<string, string>;
useTestServer(async (s) => {
  server = s;
  owner = await createTenant(s);
  stranger = await createTenant(s);
  unscoped = await createTenant(s, { scopes: ['orders:read'] });
  const { surveys, metrics } = await seedSurveys(s.orm, owner.businessId, 3, 2, 2);
  const { body } = await s.graphql(
    `query($b: ID!) { surveySteps(business: $b, survey: "${surveys[0]}") { data { id } } }`,
    { b: owner.businessId },
    owner.headers,
  );
  const location = await s.graphql('mutation($b: ID!) { createLocation(business: $b, input: {name: "Main"}) { id } }', { b: owner.businessId }, owner.headers);
  ids = {
    survey: surveys[0],
    metric: metrics[0],
    step: body.data?.surveySteps?.data?.[0]?.id ?? 'stp_unknown',
    location: location.body.data?.createLocation?.id ?? 'loc_unknown',
  };
});

/** Variables by name and type: the owner's business and objects, small pages, the first enum value. */
function variablesFor(schema: GraphQLSchema, operation: OperationDefinitionNode): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const def of operation.variableDefinitions ?? []) {
    const name = def.variable.name.value;
    const typeName = (function unwrap(t): string {
      return t.kind === Kind.NAMED_TYPE ? t.name.value : unwrap(t.type);
    })(def.type);
    const type = schema.getType(typeName);
    if (/^(b|business|businessId)$/.test(name)) values[name] = owner.businessId;
    else if (/survey/i.test(name) && typeName === 'ID') values[name] = ids.survey;
    else if (/step/i.test(name)) values[name] = ids.step;
    else if (/metric/i.test(name)) values[name] = ids.metric;
    else if (/location/i.test(name)) values[name] = ids.location;
    else if (typeName === 'ID') values[name] = ids.survey;
    else if (typeName === 'Int') values[name] = name === 'page' ? 0 : 2;
    else if (typeName === 'Timestamp') values[name] = 0;
    else if (typeName === 'Boolean') values[name] = true;
    else if (typeName === 'String') values[name] = 'x';
    else if (type && isEnumType(type)) values[name] = type.getValues()[0].value;
    else if (def.type.kind !== Kind.NON_NULL_TYPE) continue;
  }
  return values;
}

const logger = createLogger('silent');
const format = formatError(logger);

/**
 * What a client sees of an error: its JSON, then what the service's formatError makes of it (called as Apollo calls
 * it: `extensions.code` defaulted to INTERNAL_SERVER_ERROR), and what the formatter looks at (the thrown error).
 */
function seen(errors: readonly GraphQLError[] | undefined) {
  return (errors ?? []).map((e) => {
    const json = e.toJSON();
    const thrown = unwrapResolverError(e) as Error & { code?: string };
    return {
      json,
      formatted: format({ ...json, extensions: { ...e.extensions, code: e.extensions.code ?? 'INTERNAL_SERVER_ERROR' } }, e),
      extensions: e.extensions,
      thrown: { type: thrown?.constructor?.name, code: thrown?.code, message: thrown?.message, graphqlError: e instanceof GraphQLError },
    };
  });
}

describe('the compiled executor answers as graphql-js', () => {
  it('on every query of the tests, the docs, the REST routes and every root field', async () => {
    const { buildAppSchema } = await import('../../src/graphql/schema.js');
    const schema = await buildAppSchema();
    // Every enum's values are their names: compiled answers pass leaves on as resolved (and tests check them).
    expect(leavesAsResolved(schema)).toBe(true);
    const executor = new CompiledExecutor(schema);
    const contextFor = createContextFactory(server.orm.em, logger, tokenServiceFor(server), server.config.surveyUrl, server.services);
    const docs = DOC_FILES.flatMap((f) => codeBlocks(readDoc(f), 'graphql')).flatMap(queries);
    const texts = [...new Set([...testQueries(), ...docs, ...restQueries(schema), ...generatedQueries(schema)])].filter(
      (text) => validate(schema, parse(text)).length === 0,
    );
    expect(texts.length).toBeGreaterThan(60);
    const callers = { owner: owner.headers.authorization, none: undefined, stranger: stranger.headers.authorization, unscoped: unscoped.headers.authorization };
    let compared = 0;
    let errorsCompared = 0;
    for (const text of texts) {
      const document = parse(text);
      const operation = operationsOf(document)[0];
      const variableValues = variablesFor(schema, operation);
      // A document is compiled on its second request: the first (graphql-js) is not part of the comparison.
      await executor.execute({ document, source: text, variableValues, contextValue: await contextFor('parity', undefined) });
      for (const [caller, authorization] of Object.entries(callers)) {
        const run = async (how: 'compiled' | 'graphql-js'): Promise<ExecutionResult> => {
          const contextValue = await contextFor('parity', authorization);
          return how === 'compiled'
            ? executor.execute({ document, source: text, variableValues, contextValue })
            : execute({ schema, document, variableValues, contextValue });
        };
        const compiled = await run('compiled');
        const reference = await run('graphql-js');
        const what = `${caller}: ${text}`;
        expect([what, JSON.stringify(compiled.data)]).toEqual([what, JSON.stringify(reference.data)]);
        expect([what, seen(compiled.errors)]).toEqual([what, seen(reference.errors)]);
        compared++;
        if (reference.errors?.length) errorsCompared++;
      }
    }
    // Both paths were exercised: answers with data and answers with errors, and most through compiled code.
    expect(errorsCompared).toBeGreaterThan(50);
    expect(compared - errorsCompared).toBeGreaterThan(20);
    expect(executor.counts.compiled).toBe(compared);
  });
});
