import { randomBytes } from 'node:crypto';
import { startTestServer, useTestServer, type TestServer } from '../helpers/server.js';
import { startMailBox, type MailBox } from '../helpers/smtp.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { createTenant, TEST_PASSWORD } from '../helpers/auth.js';
import { rest } from '../rest/rest.helpers.js';
import { createUser } from '../../src/modules/user/user.service.js';
import { createMember } from '../../src/modules/member/member.service.js';

/** A new business `name` and its owner's REST calls: `call` a path below the business, `made` POSTs and answers the created id. */
export async function restBusiness(server: TestServer, name: string) {
  const tenant = await createTenant(server, { businessName: name });
  const b = `/v2/businesses/${tenant.businessId}`;
  const call = (method: string, path: string, body?: unknown) => rest(server, method, `${b}${path}`, { tenant, body });
  const made = async (path: string, body: unknown) => {
    const answer = await call('POST', path, body);
    if (answer.status !== 201) throw new Error(`${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body.data.id as string;
  };
  return { tenant, b, call, made };
}

/**
 * A restaurant over REST for the alert and reply tests: a survey of a 1-10 metric, an NPS and a text step, a
 * location, and `member(role)` adding a user of that role. Answers go through the API, orders too.
 */
export async function restaurant(server: TestServer, name: string) {
  const { tenant, b, call, made } = await restBusiness(server, name);
  const taste = await made('/metrics', { name: 'Taste', scale: { min: 1, max: 10 } });
  const survey = await made('/surveys', { name: 'Visit', status: 'active' });
  const steps = {
    rate: await made(`/surveys/${survey}/steps`, { type: 'metrics', metrics: { metrics: [taste] } }),
    nps: await made(`/surveys/${survey}/steps`, { type: 'nps' }),
    text: await made(`/surveys/${survey}/steps`, { type: 'text' }),
  };
  const location = await made('/locations', { name: 'Gulberg' });
  /** Completes a submission; answers its id. */
  const answer = async (a: { taste?: number; nps?: number; text?: string; order?: string; location?: string }) => {
    const res = await call('POST', `/surveys/${survey}/submissions`, {
      answers: [
        ...(a.taste != null ? [{ step: steps.rate, ratings: { [taste]: a.taste } }] : []),
        ...(a.nps != null ? [{ step: steps.nps, value: a.nps }] : []),
        ...(a.text != null ? [{ step: steps.text, value: a.text }] : []),
      ],
      ...(a.order ? { order: a.order } : {}),
      ...(a.location ? { location: a.location } : {}),
    });
    if (res.status !== 201) throw new Error(`answer: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.data.id as string;
  };
  /** An order of 900 PKR by Ayesha, under a new id, with `contact`'s e-mail or phone number; answers its id. */
  const order = (contact: { customerEmail?: string; customerPhoneNumber?: string }) =>
    made('/orders', { externalOrderId: `o-${randomBytes(4).toString('hex')}`, total: 900, currency: 'PKR', customerName: 'Ayesha', ...contact });
  /** The case a submission opened. */
  const caseOf = async (submission: string) => {
    const listed = (await call('GET', '/cases?pageSize=100')).body.data as Array<{ id: string; submission: string }>;
    const found = listed.find((c) => c.submission === submission);
    if (!found) throw new Error(`no case for ${submission}`);
    return found as any;
  };
  /** A user of `role` in this business; answers their e-mail and membership id. */
  const member = async (role: 'owner' | 'manager' | 'staff') => {
    const email = `${role}-${randomBytes(5).toString('hex')}@example.com`;
    await createUser(server.orm.em.fork(), { email, password: TEST_PASSWORD, name: `A ${role}` });
    // As the operator adds one: a token only invites, and the person joins by accepting.
    const added = await createMember(server.orm.em.fork(), tenant.businessId, { email, role });
    return { email, id: added.id };
  };
  return { tenant, b, call, made, taste, survey, steps, location, answer, order, caseOf, member };
}

export type Restaurant = Awaited<ReturnType<typeof restaurant>>;

/**
 * This file's server with its workers (they open the cases and read the comments) and a restaurant of each of `names`,
 * made in that order and handed to `bind` with the server before the first test; `options` are startTestServer's.
 */
export function useRestaurants(
  names: string[],
  bind: (server: TestServer, ...restaurants: Restaurant[]) => void,
  options: Parameters<typeof startTestServer>[0] = {},
): void {
  useTestServer(
    async (server) => {
      const made: Restaurant[] = [];
      for (const name of names) made.push(await restaurant(server, name));
      bind(server, ...made);
    },
    { workers: true, ...options },
  );
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The confirmation page's link in a message (`{PUBLIC_URL}/alerts/{token}`), as the recipient would open it. */
export function consentLink(server: TestServer, text: string): string {
  const found = new RegExp(`${server.config.publicUrl.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/alerts/[A-Za-z0-9_-]+`).exec(text);
  if (!found) throw new Error(`no confirmation link in: ${text}`);
  return found[0];
}

/**
 * This file's server with its workers, mailing through an SMTP receiver and texting through an SMS gateway that
 * accepts every text (SMTP_URL, SMS_GATEWAY_URL), both started before it and closed after it; `env` adds the rest.
 * `ready` receives the three before the first test.
 */
export function useMessagingServer(env: Record<string, string>, ready: (started: { server: TestServer; mail: MailBox; sms: Receiver }) => unknown = () => {}) {
  const started = {} as { server: TestServer; mail: MailBox; sms: Receiver };
  beforeAll(async () => {
    started.mail = await startMailBox();
    started.sms = await startReceiver(() => ({ status: 201, body: '{}' }));
    started.server = await startTestServer({ env: { SMTP_URL: started.mail.url, SMS_GATEWAY_URL: `${started.sms.url}/sms`, ...env }, workers: true });
    await ready(started);
  });
  afterAll(async () => {
    await started.server?.stop();
    await started.mail?.close();
    await started.sms?.close();
  });
}
