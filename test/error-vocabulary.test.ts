import http from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { koaMiddleware } from '@as-integrations/koa';
import { GraphQLError, GraphQLObjectType, GraphQLSchema, GraphQLString, GraphQLID, GraphQLNonNull } from 'graphql';
import type { ApolloServer } from '@apollo/server';
import { pino } from 'pino';
import { AppError, CODE_BY_GRAPHQL, CODE_BY_STATUS, ERROR_CODES, ERRORS, type ErrorCode } from '../src/shared/errors.js';
import { errorAnswer } from '../src/shared/error-answer.js';
import { errorHandler } from '../src/http/error.middleware.js';
import { bodyMiddleware } from '../src/http/body.middleware.js';
import { requestContext } from '../src/http/request-context.middleware.js';
import { createApolloServer } from '../src/graphql/apollo.js';
import type { GraphQLContext } from '../src/kit/graphql/context.js';
import { restAdapter } from '../rest-adapter/rest.module.js';
import { openApiDocument } from '../rest-adapter/openapi.generator.js';
import type { RouteDef } from '../rest-adapter/route.table.js';

/**
 * Every code of the error table (src/shared/errors.ts), thrown as an AppError through each door of a small app built
 * from the real parts: the Koa error handler, the REST adapter and Apollo with its formatError. Each door must answer
 * the table's status and code (GraphQL: the table's `extensions.code`), and the OpenAPI enum must list every code.
 */
const logger = pino({ level: 'silent' });
const refuse = (code: string): never => {
  throw new AppError(code as ErrorCode, `refused with ${code}`);
};

const Thing = new GraphQLObjectType({ name: 'Thing', fields: { id: { type: new GraphQLNonNull(GraphQLID) } } });
const schema = new GraphQLSchema({
  query: new GraphQLObjectType({
    name: 'Query',
    fields: { thing: { type: Thing, args: { code: { type: new GraphQLNonNull(GraphQLString) } }, resolve: (_, { code }) => refuse(code) } },
  }),
});
const routes: RouteDef[] = [
  {
    method: 'GET',
    path: '/v2/things/{code}',
    kind: 'get',
    field: 'thing',
    params: { code: 'code' },
    object: 'thing',
    status: 200,
    tag: 'Things',
    summary: 'Get a thing',
  },
];

let httpServer: http.Server;
let apollo: ApolloServer<GraphQLContext>;
let url: string;
beforeAll(async () => {
  httpServer = http.createServer();
  apollo = await createApolloServer(schema, httpServer, logger);
  const contextFor = async (requestId: string) => ({ requestId, logger }) as unknown as GraphQLContext;
  const koaRoutes = new Router().get('/koa/:code', (ctx) => refuse(ctx.params.code));
  const graphql = koaMiddleware(apollo, { context: async ({ ctx }) => contextFor(ctx.state.requestId) });
  const app = new Koa()
    .use(requestContext(logger))
    .use(errorHandler(logger))
    .use(bodyMiddleware())
    .use(koaRoutes.routes())
    .use(restAdapter({ schema, contextFor, routes }))
    .use((ctx, next) => (ctx.path === '/graphql' ? graphql(ctx, next) : next()));
  httpServer.on('request', app.callback());
  await new Promise<void>((resolve) => httpServer.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(httpServer.address() as { port: number }).port}`;
});
afterAll(async () => {
  await apollo?.stop(); // closes httpServer too (drain plugin)
});

describe.each(ERROR_CODES)('%s', (code) => {
  const { status, graphql } = ERRORS[code];
  const body = { error: { status, code, message: `refused with ${code}`, requestId: expect.stringMatching(/^req_/) } };

  it('Koa handler: the status and code of the table', async () => {
    const res = await fetch(`${url}/koa/${code}`);
    expect({ status: res.status, body: await res.json() }).toEqual({ status, body });
  });

  it('REST adapter: the same status and code', async () => {
    const res = await fetch(`${url}/v2/things/${code}`);
    expect({ status: res.status, body: await res.json() }).toEqual({ status, body });
  });

  it("GraphQL: the table's extensions.code and the status", async () => {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'query($c: String!) { thing(code: $c) { id } }', variables: { c: code } }),
    });
    const { errors } = await res.json();
    expect(errors[0]).toEqual(expect.objectContaining({ message: `refused with ${code}`, extensions: { code: graphql, status } }));
  });

  it('the inverse readings agree: a bare status or GraphQL code reads as a code with the same status and GraphQL code', () => {
    expect(ERRORS[CODE_BY_STATUS.get(status)!].status).toBe(status);
    expect(ERRORS[CODE_BY_GRAPHQL.get(graphql)!].graphql).toBe(graphql);
    if (status >= 500) return; // faults are never read from a status or a GraphQL code: they are masked
    const fromStatus = errorAnswer(Object.assign(new Error('refused'), { status }), { onFault: () => undefined });
    const fromGraphql = errorAnswer(new GraphQLError('refused', { extensions: { code: graphql } }), { onFault: () => undefined });
    expect([fromStatus.status, fromGraphql.status]).toEqual([status, status]);
    expect(ERRORS[fromGraphql.body.error.code].graphql).toBe(graphql);
  });
});

it('the OpenAPI error enum lists exactly the codes of the table', () => {
  const doc = openApiDocument(schema, routes) as { components: { schemas: Record<string, any> } };
  expect(doc.components.schemas.Error.properties.error.properties.code.enum).toEqual(ERROR_CODES);
});

it('a fault is answered internal, without its text, and reported', () => {
  const reported: unknown[] = [];
  const secret = new Error('relation "business_gone" does not exist');
  const answer = errorAnswer(new GraphQLError('wrapped', { originalError: secret }), { requestId: 'req_x', onFault: (err) => reported.push(err) });
  expect(answer).toEqual({
    status: 500,
    headers: {},
    body: { error: { status: 500, code: 'internal', message: 'Internal server error', requestId: 'req_x' } },
  });
  expect(reported).toEqual([secret]);
});
