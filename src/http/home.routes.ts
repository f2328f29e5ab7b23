import Router from '@koa/router';
import { escapeHtml, pageHeaders, sendHtml } from './html.js';

interface Door {
  href: string;
  name: string;
  says: string;
}

/**
 * GET /: what a person finds at the service's address. Most are restaurant owners and managers: the portal (and, when
 * sign-up is open, an account) comes first; the developers' doors follow, each with a line on what it is for and
 * whether it needs the internet. Server-rendered, no script.
 */
const DEVELOPER_SECTIONS: Array<{ title: string; doors: Door[] }> = [
  {
    title: 'Explore the APIs',
    doors: [
      { href: '/graphiql', name: 'GraphiQL', says: 'The GraphQL API in GraphiQL, served by this service: works offline.' },
      {
        href: '/graphql',
        name: 'Apollo Sandbox',
        says: "The GraphQL API in Apollo Sandbox. Sandbox loads from Apollo's CDN: it needs internet access and stays blank without it (use GraphiQL then).",
      },
      { href: '/docs', name: 'REST API documentation', says: 'Every /v2 route, browsable (Swagger UI, served by this service: works offline).' },
      {
        href: '/openapi.json',
        name: 'OpenAPI document',
        says: 'OpenAPI 3.1 of the REST API, the OAuth endpoints and the custom order webhook: generate a client from it.',
      },
    ],
  },
  {
    title: 'Sign in and tokens',
    doors: [
      {
        href: '/.well-known/oauth-authorization-server',
        name: 'OAuth 2.0 metadata',
        says: 'RFC 8414: the authorization, token, revocation and introspection endpoints, scopes and grants.',
      },
      { href: '/oauth/certs', name: 'Signing keys (JWKS)', says: 'To verify access tokens (RS512 JWTs) yourself.' },
    ],
  },
  {
    title: 'Operations',
    doors: [
      { href: '/healthz', name: 'Liveness', says: '200 while the process is up.' },
      { href: '/readyz', name: 'Readiness', says: '200 when the database answers too; 503 otherwise and while shutting down.' },
    ],
  },
];

const CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

function page(signupOpen: boolean): string {
  const sections = DEVELOPER_SECTIONS.map(
    (s) => `<section aria-labelledby="${escapeHtml(slug(s.title))}">
<h3 id="${escapeHtml(slug(s.title))}">${escapeHtml(s.title)}</h3>
<ul>${s.doors.map((d) => `<li><a href="${escapeHtml(d.href)}">${escapeHtml(d.name)}</a> <code>${escapeHtml(d.href)}</code><br>${escapeHtml(d.says)}</li>`).join('\n')}</ul>
</section>`,
  ).join('\n');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Feedback service</title>
<style>
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; padding: 0 1rem; background: #f4f5f7; color: #1d2330; }
  main { max-width: 44rem; margin: 2rem auto; padding: 1.5rem 2rem; background: #fff; border-radius: 12px; box-shadow: 0 1px 4px rgba(0,0,0,.08); }
  h1 { font-size: 1.5rem; margin-top: 0; } h2 { font-size: 1.2rem; margin: 1rem 0 .5rem; } h3 { font-size: 1.05rem; margin: 1.5rem 0 .5rem; }
  ul { padding-left: 1.2rem; } li { margin: .6rem 0; } a { color: #1f45b8; font-weight: 600; }
  code { font-size: .85rem; color: #3d4555; margin-left: .3rem; }
  .actions { display: flex; flex-wrap: wrap; gap: .75rem; margin: 1.25rem 0 .5rem; }
  .button { display: inline-block; padding: .65rem 1.1rem; border-radius: 8px; background: #1f45b8; color: #fff; text-decoration: none; }
  .button.secondary { background: #fff; color: #1f45b8; border: 2px solid #1f45b8; }
  .developers { margin-top: 2.5rem; border-top: 1px solid #d5d9e0; padding-top: .5rem; }
</style>
</head>
<body>
<main>
<h1>Hear from every guest, and win back the unhappy ones</h1>
<p>Ask each guest about their order by e-mail, SMS or QR code, read what they said about each dish, and answer the
unhappy ones before they leave a public review. Sign in to your business portal to set it up and read your feedback.</p>
<p class="actions"><a class="button" href="/portal">Sign in to the business portal</a>${signupOpen ? ' <a class="button secondary" href="/signup">Create an account</a>' : ''}</p>
<section class="developers" aria-labelledby="for-developers">
<h2 id="for-developers">For developers</h2>
<p>Partners call the REST API, dashboards the GraphQL API, ordering systems push orders into the custom order webhook
(<code>POST /webhooks/custom/{business}</code>).</p>
${sections}
</section>
</main>
</body>
</html>
`;
}

function slug(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

export function homeRoutes(options: { signupOpen: boolean }): Router {
  const router = new Router();
  const html = page(options.signupOpen);
  router.get('/', (ctx) => {
    pageHeaders(ctx, CSP);
    sendHtml(ctx, 200, html);
  });
  return router;
}
