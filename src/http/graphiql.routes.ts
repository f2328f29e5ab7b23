import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import Router from '@koa/router';
import { pageHeaders, sendHtml } from './html.js';

/**
 * GET /graphiql: GraphiQL served from the npm packages (graphiql's UMD build on React 18's UMD builds), so the API can
 * be explored with no internet, unlike Apollo Sandbox at /graphql, which loads from Apollo's CDN.
 *
 * Every script is a file of ours (no inline script: the CSP allows scripts from 'self' only); the assets' URLs carry
 * the package versions, so they are cached for a year and an upgrade changes the URL. Styles stay 'unsafe-inline':
 * React and CodeMirror set style attributes, which no hash can cover. Fonts and icons come inlined as data: URLs.
 */
const require = createRequire(import.meta.url);
const packageDir = (name: string) => path.dirname(require.resolve(`${name}/package.json`));
const versionOf = (name: string) => (JSON.parse(fs.readFileSync(path.join(packageDir(name), 'package.json'), 'utf8')) as { version: string }).version;

const ASSETS: Record<string, { file: string; type: string }> = {
  'react.production.min.js': { file: path.join(packageDir('react'), 'umd/react.production.min.js'), type: 'text/javascript; charset=utf-8' },
  'react-dom.production.min.js': { file: path.join(packageDir('react-dom'), 'umd/react-dom.production.min.js'), type: 'text/javascript; charset=utf-8' },
  'graphiql.min.js': { file: path.join(packageDir('graphiql'), 'graphiql.min.js'), type: 'text/javascript; charset=utf-8' },
  'graphiql.min.css': { file: path.join(packageDir('graphiql'), 'graphiql.min.css'), type: 'text/css; charset=utf-8' },
};
/** One version string for the lot: any of the three packages changing gives new URLs. */
const VERSION = `${versionOf('graphiql')}-${versionOf('react')}-${versionOf('react-dom')}`;
const asset = (name: string) => `/graphiql/assets/${VERSION}/${name}`;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "font-src 'self' data:",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>GraphiQL: Feedback service</title>
<link rel="stylesheet" href="${asset('graphiql.min.css')}">
<link rel="stylesheet" href="/graphiql/page.css">
</head>
<body>
<header class="visually-hidden"><h1>GraphiQL: the Feedback service's GraphQL API</h1></header>
<main id="graphiql" aria-label="GraphiQL">Loading GraphiQL…</main>
<script src="${asset('react.production.min.js')}"></script>
<script src="${asset('react-dom.production.min.js')}"></script>
<script src="${asset('graphiql.min.js')}"></script>
<script src="/graphiql/init.js"></script>
</body>
</html>
`;

const PAGE_CSS = `html, body { height: 100%; margin: 0; } #graphiql { height: 100vh; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }`;

// Put `{"Authorization": "Bearer <token>"}` in the Headers tab for anything but `health`.
const INIT = `(function () {
  var fetcher = GraphiQL.createFetcher({ url: '/graphql' });
  var root = ReactDOM.createRoot(document.getElementById('graphiql'));
  root.render(React.createElement(GraphiQL, {
    fetcher: fetcher,
    defaultEditorToolsVisibility: true,
    defaultQuery: '# Put {"Authorization": "Bearer <access token>"} in the Headers tab below for anything but health.\\n{ health { status database version } }\\n'
  }));
  // CodeMirror's input textareas have no accessible name (axe: label): name each after the panel around it.
  new MutationObserver(function () {
    document.querySelectorAll('#graphiql textarea:not([aria-label])').forEach(function (el) {
      var panel = el.closest('[aria-label]');
      el.setAttribute('aria-label', panel ? panel.getAttribute('aria-label') : 'Editor');
    });
  }).observe(document.body, { childList: true, subtree: true });
})();
`;

export function graphiqlRoutes(): Router {
  const router = new Router();
  router.get('/graphiql', (ctx) => {
    pageHeaders(ctx, CSP);
    sendHtml(ctx, 200, PAGE);
  });
  // Small and tied to the page: revalidated like the page itself.
  router.get('/graphiql/init.js', (ctx) => {
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.body = INIT;
  });
  router.get('/graphiql/page.css', (ctx) => {
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/css; charset=utf-8';
    ctx.body = PAGE_CSS;
  });
  router.get('/graphiql/assets/:version/:file', (ctx) => {
    const found = ASSETS[ctx.params.file];
    if (!found || ctx.params.version !== VERSION) return; // falls through to the 404
    ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.type = found.type;
    ctx.body = fs.createReadStream(found.file);
  });
  return router;
}
