import Router from '@koa/router';
import { Kind, type GraphQLError, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';
import type { Context } from 'koa';
import { noteWrite, routeReads, type ContextFor } from '../src/kit/graphql/context.js';
import { assertStorableText } from '../src/shared/text.js';
import { AppError } from '../src/shared/errors.js';
import { Checks } from '../src/shared/validation.js';
import { executorFor, releaseAnswer } from '../src/graphql/executor.js';
import { DocumentCache } from './document.cache.js';
import { isForbidden, pickError } from './errors.mapper.js';
import { checkInput } from './input.validation.js';
import { parseQuery, type Filter, type Sort } from './query.parsers.js';
import { allowedMethods, koaPath, ROUTES, type RouteDef } from './route.table.js';
import { routeModel, type RouteModel } from './schema.model.js';
import { flatten } from './selection.builder.js';
import type { ApiLimit } from '../src/http/rate-limit/rate-limits.js';
import { costOf, DEFAULT_LIMITS } from '../src/graphql/limits.js';
import { reportVariables } from './report.params.js';
import { toCsv, wantsCsv } from './csv.presenter.js';

export interface RestDeps {
  schema: GraphQLSchema;
  /** The same factory /graphql uses (src/kit/graphql/context.ts): same tokens, same scopes. */
  contextFor: ContextFor;
  routes?: RouteDef[];
  /** The API quota, shared with /graphql: a route weighs what its GraphQL operation costs. */
  limit?: ApiLimit;
}

/**
 * The answer as JSON text at once, as Koa would write it (same bytes, same Content-Type), rather than the object for
 * Koa to serialize once the middleware has unwound: Koa's context, made when the request came, holds its body until
 * the response is finished, so with text there the answer's objects can go as soon as they are written (see
 * releaseAnswer).
 */
function sendJson(ctx: Context, value: unknown): void {
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(value);
}

/** `where` of the GraphQL list from REST filters: {field, type, value} -> {field: {type: value}}. */
function filtersToWhere(filters: Filter[]): Record<string, Record<string, unknown>> | undefined {
  if (!filters.length) return undefined;
  const where: Record<string, Record<string, unknown>> = {};
  for (const { field, type, value } of filters) (where[field] ??= {})[type] = value;
  return where;
}

const sortsToOrderBy = (sorts: Sort[]) => (sorts.length ? sorts.map(({ field, order }) => ({ field, order })) : undefined);

function checkWhere(model: RouteModel, where: Record<string, unknown> | undefined) {
  if (!where || !model.whereType) return;
  const checks = new Checks();
  checkInput(checks, where, model.whereType);
  if (!checks.details.length) return;
  const problems = checks.details.map((d) => {
    const [field, type] = d.field.split(/[.[]/);
    return `the value of ${JSON.stringify(field)} ${type ?? ''} ${d.message}`.replace(/\s+/g, ' ');
  });
  const example =
    'createdAt' in (model.conventions?.filterFields ?? {})
      ? `filters={"field":"createdAt","type":"gte","value":1767225600000}`
      : 'filters={"field":"name","type":"eq","value":"text"}';
  const message = `filters: ${problems.join('; ')}. Example of a correct value: ${example}`;
  throw new AppError('bad_request', message, [{ field: 'filters', message: `${problems.join('; ')}. Example: ${example}` }]);
}

/** /graphql's cost limit, checked before anything runs or is charged: only large pages with deep `expand` reach it. */
function checkCost(cost: number, expand: string[]) {
  const { maxCost } = DEFAULT_LIMITS;
  if (cost <= maxCost) return;
  const field = expand.length ? 'expand' : 'pageSize';
  const message = `the request's estimated cost is ${cost}, over the limit of ${maxCost} (the same as /graphql's): ask for a smaller pageSize or expand fewer relations`;
  throw new AppError('bad_request', `${field}: ${message}`, [{ field, message }]);
}

function requestBody(ctx: Context, model: RouteModel): Record<string, unknown> {
  const body = (ctx.request as { body?: unknown }).body;
  if (body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0 && !ctx.request.length)) {
    return {};
  }
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new AppError('validation_failed', 'The request body must be a JSON object', [
      { field: 'body', message: `must be a JSON object with ${Object.keys(model.inputType!.getFields()).join(', ')}` },
    ]);
  }
  return body as Record<string, unknown>;
}

/** Removes from the answer the unexpanded relations the token may not read (the field is withheld, not an error). */
function withhold(data: any, errors: readonly GraphQLError[], expand: string[]): boolean {
  for (const error of errors) {
    const path = error.path ?? [];
    const names = path.filter((p): p is string => typeof p === 'string').slice(1);
    if (names[0] === 'data') names.shift();
    if (!isForbidden(error) || path.length < 2 || expand.includes(names.join('.'))) return false;
    let node = data;
    for (const key of path.slice(0, -1)) node = node?.[key];
    if (node && typeof node === 'object') delete node[path[path.length - 1]];
  }
  return true;
}

/** The same request for another page: its path and query, only `page` changed (relative to the service's address). */
function pageLink(ctx: Context, page: number): string {
  const query = new URLSearchParams(ctx.querystring);
  query.set('page', String(page));
  return `${ctx.path}?${query.toString()}`;
}

export function restRouter(deps: RestDeps): Router {
  const { schema, contextFor } = deps;
  const routes = deps.routes ?? ROUTES;
  const cache = new DocumentCache(schema);
  // The same compiled functions as /graphql (src/graphql/executor.ts), keyed by the cached document's text.
  const executor = executorFor(schema);
  const router = new Router();

  for (const route of routes) {
    const model = routeModel(schema, route);
    const routeKey = `${route.method} ${route.path}`;
    const pathParams = Object.keys(route.params);

    router.register(koaPath(route.path), [route.method], async (ctx) => {
      const search = new URLSearchParams(ctx.querystring);
      const query = parseQuery(search, model.parameters, model.conventions, model.graph);
      const params: Record<string, string> = {};
      const variables: Record<string, unknown> = {};
      for (const name of pathParams) {
        params[name] = ctx.params[name];
        variables[route.params[name]] = ctx.params[name];
      }
      if (route.kind === 'list') {
        variables.page = query.page;
        variables.pageSize = query.pageSize;
        const where = filtersToWhere(query.filters);
        checkWhere(model, where);
        if (where) variables.where = where;
        const orderBy = sortsToOrderBy(query.sorts);
        if (orderBy) variables.orderBy = orderBy;
      } else if (route.kind === 'report') {
        const format = search.get('format');
        if (format != null && format !== 'csv' && format !== 'json')
          throw new AppError('validation_failed', "format: 'csv' or 'json'", [{ field: 'format', message: "must be 'csv' or 'json'" }]);
        Object.assign(variables, reportVariables(search, model.field, new Set(Object.values(route.params))));
      } else if (model.inputType) {
        const input = requestBody(ctx, model);
        const checks = new Checks();
        checkInput(checks, input, model.inputType);
        checks.throwIfAny();
        if (route.kind === 'compute') Object.assign(variables, input);
        else variables.input = input;
      }

      // Bodies were checked when parsed; filters come JSON-decoded from the query string. A NUL in a bind parameter
      // breaks PostgreSQL's protocol, so it must not get that far.
      assertStorableText(variables.where, 'filters');
      const compiled = cache.get(model, query.expand, routeKey);
      const operation = compiled.document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
      const cost = costOf(schema, compiled.document, operation, variables);
      checkCost(cost, query.expand);
      const contextValue = await contextFor(ctx.state.requestId, ctx.get('authorization') || undefined, ctx.ip);
      if (deps.limit) {
        const charge = await deps.limit.charge(contextValue.auth, ctx.ip, cost);
        if (charge) ctx.set(charge.headers);
      }
      // GET routes (lists, single objects, reports and their CSV) are queries: their reads may go to a replica.
      await routeReads(contextValue, operation.operation);
      const result = await executor.execute({ document: compiled.document, source: compiled.text, contextValue, variableValues: variables });
      if (operation.operation === 'mutation') await noteWrite(contextValue);
      const data = result.data as { r?: any } | null | undefined;
      // Rendered by the service's error handler like any failure: domain errors as they are, nothing raw from GraphQL.
      if (result.errors?.length && !(data?.r != null && withhold(data, result.errors, query.expand))) throw pickError(result.errors);
      const answer = data?.r;

      if (route.deprecated) {
        ctx.set('Deprecation', route.deprecated.deprecation);
        ctx.set('Sunset', route.deprecated.sunset);
        ctx.set('Link', `<${route.deprecated.successor.replace('{business}', params.business)}>; rel="successor-version"`);
      }
      if (answer == null || answer === false) {
        throw new AppError('not_found', route.object === 'custom_integration' ? 'The Custom integration is not connected' : `${route.object} was not found`);
      }
      if (route.status === 204) {
        ctx.status = 204;
        ctx.body = null;
        return;
      }
      ctx.status = route.status;
      if (route.kind === 'report') {
        if (wantsCsv(search.get('format'), ctx.get('accept') || undefined)) {
          ctx.type = 'text/csv; charset=utf-8';
          ctx.set('Content-Disposition', `attachment; filename="${route.path.split('/').pop()}.csv"`);
          ctx.body = toCsv(answer);
        } else sendJson(ctx, { object: 'list', data: answer });
      } else if (route.kind === 'compute') {
        sendJson(ctx, { object: 'list', data: answer });
      } else if (route.kind === 'list') {
        const items = answer.data as any[];
        if (compiled.plan) for (const item of items) flatten(item, compiled.plan, params);
        const links = { next: answer.hasMore ? pageLink(ctx, answer.page + 1) : null, previous: answer.page > 0 ? pageLink(ctx, answer.page - 1) : null };
        sendJson(ctx, { object: 'list', data: items, page: answer.page, pageSize: answer.pageSize, total: answer.total, hasMore: answer.hasMore, links });
      } else if (compiled.plans) {
        const { __typename, ...object } = answer;
        sendJson(ctx, { data: flatten(object, compiled.plans[__typename], params), object: object.object });
      } else {
        sendJson(ctx, { data: compiled.plan ? flatten(answer, compiled.plan, params) : answer, object: route.object });
      }
      releaseAnswer(data);
    });
  }

  // A known path with a method it lacks: 405 and Allow, as Koa's routers answer it; the error handler words it.
  for (const [path, methods] of allowedMethods(routes)) {
    const allow = [...methods, ...(methods.includes('GET') ? ['HEAD'] : [])].join(', ');
    router.all(koaPath(path), (ctx) => {
      ctx.status = 405;
      ctx.set('Allow', allow);
    });
  }
  return router;
}
