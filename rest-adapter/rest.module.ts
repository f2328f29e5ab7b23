import type { Middleware } from 'koa';
import { restRouter, type RestDeps } from './rest.router.js';
import { docsRouter } from './docs.routes.js';
import { ROUTES } from './route.table.js';

/** The REST compatibility layer: /v1 and /v2 resource routes, /openapi.json and /docs. Mounted once in src/app.ts. */
export function restAdapter(deps: RestDeps): Middleware {
  const routes = deps.routes ?? ROUTES;
  const rest = restRouter({ ...deps, routes }).routes() as unknown as Middleware;
  const docs = docsRouter(deps.schema, routes).routes() as unknown as Middleware;
  return (ctx, next) => rest(ctx, () => docs(ctx, next));
}
