import { randomBytes } from 'node:crypto';
import { createUser } from '../../src/modules/user/user.service.js';
import { createBusiness } from '../../src/modules/member/member.service.js';
import { connectCustomIntegration } from '../../src/modules/integration/custom-integration.service.js';
import { useTestServer, type TestServer } from '../helpers/server.js';

export interface WebhookBusiness {
  businessId: string;
  secret: string;
  post(body: unknown, options?: { secret?: string | null; headers?: Record<string, string>; raw?: string }): Promise<{ status: number; body: any }>;
}

/** A business (country PK unless told) with the Custom integration connected; `post` sends to its webhook. */
export async function webhookBusiness(server: TestServer, options: { country?: string } = {}): Promise<WebhookBusiness> {
  const em = server.orm.em.fork();
  const user = await createUser(em, { email: `wh-${randomBytes(6).toString('hex')}@example.com`, password: 'correct horse battery staple' });
  const { business } = await createBusiness(em, { name: 'Webhook Cafe', owner: user.id, country: options.country ?? 'PK' });
  const { secret } = await connectCustomIntegration(server.orm.em.fork(), business.id);
  return {
    businessId: business.id,
    secret,
    post: (body, opts = {}) => postWebhook(server, business.id, body, { secret: opts.secret === undefined ? secret : opts.secret, ...opts }),
  };
}

/**
 * This file's server (useTestServer, with `options`) and a webhook business on it: the returned object's `server` and
 * `shop` are set before the first test runs, so tests and hooks read them there.
 */
export function useWebhookServer(options: Parameters<typeof useTestServer>[1] = {}): { server: TestServer; shop: WebhookBusiness } {
  const fx = {} as { server: TestServer; shop: WebhookBusiness };
  useTestServer(async (server) => {
    fx.server = server;
    fx.shop = await webhookBusiness(server);
  }, options);
  return fx;
}

export async function postWebhook(
  server: TestServer,
  business: string,
  body: unknown,
  options: { secret?: string | null; headers?: Record<string, string>; raw?: string } = {},
): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers };
  if (options.secret) headers.authorization = `Bearer ${options.secret}`;
  const res = await fetch(`${server.url}/webhooks/custom/${business}`, {
    method: 'POST',
    headers,
    body: options.raw ?? JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: any = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: res.status, body: parsed };
}

/** Rows of a table for one business, through plain SQL. */
export async function rows(server: TestServer, sql: string, params: unknown[] = []): Promise<any[]> {
  return server.orm.em.getConnection().execute(sql, params);
}

let counter = 0;
export const uniqueId = (prefix = 'ext') => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}-${randomBytes(3).toString('hex')}`;

/** The smallest valid body. */
export const minimal = (extra: Record<string, unknown> = {}) => ({
  externalOrderId: uniqueId(),
  total: '100',
  currency: 'PKR',
  metadata: { source: 'test' },
  ...extra,
});

/** `minimal` with the guest's contacts, channel and amounts as an ordering system writes them (spaces, commas, strings). */
export const withCustomer = (extra: Record<string, unknown> = {}) =>
  minimal({
    customerName: 'Ayesha Khan',
    customerEmail: 'Ayesha@Example.com',
    customerPhoneNumber: '0300 1234567',
    channel: 'Food Panda',
    subtotal: '1,100',
    deliveryCharge: 150,
    ...extra,
  });

/** Two order lines: one with every field, amounts as strings, and one with nothing but its id. */
export const twoLines = () => [
  {
    itemId: 'SKU-1',
    name: `Zinger ${uniqueId()}`,
    quantity: 2,
    unitPrice: '450',
    totalPrice: '900',
    salesTaxPercent: '16',
    salesTaxAmount: 144,
    itemComment: 'no mayo',
  },
  { itemId: `ONLY-${uniqueId()}` },
];
