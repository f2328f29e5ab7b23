import { useTestServer, type startTestServer, type TestServer } from './server.js';
import { createTenant, type Tenant } from './auth.js';
import { client, sleep, type Client } from './graphql.js';

/** A business with an active survey of the four steps issue 12's tests walk through, plus whatever `extra` adds. */
export interface GuestSurveyFixture {
  server: TestServer;
  tenant: Tenant;
  c: Client;
  business: string;
  survey: string;
  steps: Record<string, string>;
  metrics: { food: string; service: string };
  path: string;
  setStatus(status: 'draft' | 'active' | 'archived'): Promise<void>;
  addStep(input: object): Promise<string>;
  order(externalOrderId: string, externalLocationId?: string): Promise<string>;
  location(name: string, metadata: Record<string, string>): Promise<string>;
}

export interface GuestSurveyOptions {
  name?: string;
  steps?: Array<[string, object]>;
}

export async function guestSurvey(server: TestServer, options: GuestSurveyOptions = {}): Promise<GuestSurveyFixture> {
  const tenant = await createTenant(server, { businessName: 'Karachi Kitchen' });
  const c = client(server, tenant.headers);
  const business = tenant.businessId;
  const survey = (
    await c.data(`mutation($b: ID!, $n: String!) { createSurvey(business: $b, input: {name: $n, status: active}) { id } }`, {
      b: business,
      n: options.name ?? 'Your visit',
    })
  ).createSurvey.id;
  const metric = async (name: string, scale?: object) =>
    (await c.data(`mutation($b: ID!, $i: CreateMetricInput!) { createMetric(business: $b, input: $i) { id } }`, { b: business, i: { name, scale } }))
      .createMetric.id as string;
  const metrics = { food: await metric('Food'), service: await metric('Service', { min: 1, max: 5 }) };
  const addStep = async (input: object) =>
    (
      await c.data(`mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { id } }`, {
        b: business,
        s: survey,
        i: input,
      })
    ).createSurveyStep.id as string;
  const steps: Record<string, string> = {};
  const wanted = options.steps ?? [
    ['rate', { type: 'metrics', required: true, content: { title: 'How was it?' }, metrics: { metrics: [metrics.food, metrics.service] } }],
    ['nps', { type: 'nps', required: true }],
    ['choice', { type: 'choice', required: true, content: { title: 'How did you order?', choices: ['Dine-in', 'Takeaway', 'Delivery'] } }],
    ['text', { type: 'text', inputType: 'long', content: { title: 'Anything else?' }, validation: { maxLength: 500 } }],
  ];
  for (const [key, input] of wanted) steps[key] = await addStep(input);
  return {
    server,
    tenant,
    c,
    business,
    survey,
    steps,
    metrics,
    path: `/survey/${business}/${survey}`,
    addStep,
    async setStatus(status) {
      await c.data(`mutation($b: ID!, $s: ID!, $st: SurveyStatus!) { updateSurvey(business: $b, id: $s, input: {status: $st}) { id } }`, {
        b: business,
        s: survey,
        st: status,
      });
      // The page cache forgets a survey when the change's NOTIFY reaches it, a moment after the commit (in every
      // process alike): wait, bounded, until the page answers as the new status says, so a test reads the change.
      const expected = { draft: 404, active: 200, archived: 410 }[status];
      const pageStatus = async () => {
        const res = await fetch(`${server.url}/survey/${business}/${survey}`);
        await res.arrayBuffer();
        return res.status;
      };
      for (const until = Date.now() + 5_000; (await pageStatus()) !== expected; await sleep(10)) {
        if (Date.now() > until) throw new Error(`the survey page did not answer ${expected} within 5 s of the status ${status}`);
      }
    },
    async order(externalOrderId, externalLocationId) {
      const input = { externalOrderId, externalLocationId, total: 10, currency: 'PKR' };
      return (await c.data(`mutation($b: ID!, $i: CreateOrderInput!) { createOrder(business: $b, input: $i) { id } }`, { b: business, i: input })).createOrder
        .id;
    },
    async location(name, metadata) {
      return (
        await c.data(`mutation($b: ID!, $i: CreateLocationInput!) { createLocation(business: $b, input: $i) { id } }`, { b: business, i: { name, metadata } })
      ).createLocation.id;
    },
  };
}

/**
 * This file's server (useTestServer, with `options.server`) and a guest survey on it (guestSurvey, with
 * `options.survey`): the returned fixture is filled in before the first test runs, so tests and hooks read it there;
 * `ready` receives it and may prepare more.
 */
export function useGuestSurvey(
  options: { survey?: GuestSurveyOptions; server?: Parameters<typeof startTestServer>[0] } = {},
  ready?: (fx: GuestSurveyFixture) => unknown,
): GuestSurveyFixture {
  const fx = {} as GuestSurveyFixture;
  useTestServer(async (server) => {
    Object.assign(fx, await guestSurvey(server, options.survey));
    await ready?.(fx);
  }, options.server);
  return fx;
}

export interface GuestPage {
  status: number;
  headers: Headers;
  html: string;
  /** Where a 303 pointed. */
  location?: string;
  csrf?: string;
  step?: string;
}

/** A guest's phone over plain HTTP: a cookie jar, forms posted as a browser posts them, redirects followed by hand. */
export class GuestAgent {
  readonly cookies = new Map<string, string>();

  constructor(
    readonly base: string,
    readonly headers: Record<string, string> = {},
  ) {}

  private remember(res: Response) {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      this.cookies.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  }

  private cookieHeader() {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(url: string, headers: Record<string, string> = {}): Promise<GuestPage> {
    const res = await fetch(this.base + url, {
      redirect: 'manual',
      headers: { accept: 'text/html', cookie: this.cookieHeader(), ...this.headers, ...headers },
    });
    return this.page(res);
  }

  async post(url: string, form: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<GuestPage> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    const res = await fetch(this.base + url, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: this.cookieHeader(), ...this.headers, ...headers },
      body,
    });
    return this.page(res);
  }

  /** Posts the page's form (its own csrf, step and action) with these answers; follows the 303. */
  async answer(page: GuestPage, form: Record<string, string | string[]>, headers: Record<string, string> = {}): Promise<{ post: GuestPage; next: GuestPage }> {
    const action = /<form method="post" action="([^"]+)"/.exec(page.html)?.[1]?.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)));
    if (!action) throw new Error(`no form on the page: ${page.html.slice(0, 300)}`);
    const post = await this.post(action, { csrf: page.csrf!, step: page.step!, ...form }, headers);
    const next = post.status === 303 ? await this.get(post.location!) : post;
    return { post, next };
  }

  private async page(res: Response): Promise<GuestPage> {
    this.remember(res);
    const html = await res.text();
    const location = res.headers.get('location') ?? undefined;
    return {
      status: res.status,
      headers: res.headers,
      html,
      location: location?.replace(this.base, ''),
      csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1],
      step: /name="step" value="([^"]+)"/.exec(html)?.[1],
    };
  }
}

/** The page's heading text, without the markup around it. */
export const h1 = (html: string) =>
  /<h1[^>]*>(.*?)<\/h1>/s
    .exec(html)?.[1]
    ?.replace(/<span class="hint">.*?<\/span>/g, '')
    .replace(/<[^>]+>/g, '')
    .trim();
