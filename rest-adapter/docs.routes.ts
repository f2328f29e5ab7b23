import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import Router from '@koa/router';
import type { GraphQLSchema } from 'graphql';
import { openApiDocument } from './openapi.generator.js';
import type { RouteDef } from './route.table.js';

/** swagger-ui-dist's files, served from node_modules: the page loads with no internet (no CDN). */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'index.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
};

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>Feedback service REST API</title>
    <link rel="stylesheet" type="text/css" href="/docs/assets/swagger-ui.css" />
    <link rel="stylesheet" type="text/css" href="/docs/assets/index.css" />
    <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32" />
  </head>
  <body>
    <main id="swagger-ui"></main>
    <script src="/docs/assets/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="/docs/init.js" charset="UTF-8"></script>
  </body>
</html>
`;

const INIT = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    validatorUrl: null
  });
  // Swagger UI leaves some controls without an accessible name (axe: label, select-name): name them from context.
  new MutationObserver(function () {
    document.querySelectorAll('#swagger-ui select:not([aria-label]), #swagger-ui input:not([aria-label]):not([type=hidden])').forEach(function (el) {
      var param = el.closest('tr[data-param-name]');
      el.setAttribute('aria-label', el.id === 'servers' ? 'Server' : param ? param.getAttribute('data-param-name') : el.placeholder || el.name || 'Value');
    });
  }).observe(document.body, { childList: true, subtree: true });
};
`;

function swaggerUiDir(): string {
  return path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

/** GET /openapi.json (generated once, on first request) and GET /docs (Swagger UI from the swagger-ui-dist package). */
export function docsRouter(schema: GraphQLSchema, routes: RouteDef[]): Router {
  const router = new Router();
  let document: string | undefined;
  const dir = swaggerUiDir();

  router.get('/openapi.json', (ctx) => {
    document ??= JSON.stringify(openApiDocument(schema, routes));
    ctx.type = 'application/json';
    ctx.body = document;
  });
  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = PAGE;
  });
  router.get('/docs/init.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = INIT;
  });
  router.get('/docs/assets/:file', (ctx) => {
    const type = ASSETS[ctx.params.file];
    if (!type) return; // falls through to the 404
    ctx.type = type;
    ctx.set('Cache-Control', 'public, max-age=86400');
    ctx.body = fs.createReadStream(path.join(dir, ctx.params.file));
  });
  return router;
}
