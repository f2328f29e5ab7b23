import type { Page } from 'playwright-core';
import type { TestServer } from './server.js';
import { createTenant, TEST_PASSWORD, type Tenant } from './auth.js';
import type { MailBox } from './smtp.js';
import { startReceiver, type Receiver } from './receiver.js';
import { freePort } from './ports.js';
import { buildPortal, offsiteRequests, portalLoaded, signedInAt, signInOnPage, useServerAndBrowser, useServerBrowserAndMail } from './browser.js';
import { createUser } from '../../src/modules/user/user.service.js';
import { Membership } from '../../src/modules/user/membership.entity.js';
import type { MembershipRole } from '../../src/auth/roles.js';

/** The portal's navigation as an owner sees it: every screen, in order. */
export const OWNER_NAV = [
  'Overview',
  'Inbox',
  'Surveys',
  'Feedback',
  'Themes',
  'Orders',
  'Integrations',
  'Webhooks',
  'API credentials',
  'Feedback flows',
  'Saved replies',
  'Alert rules',
  'Locations',
  'Members',
  'Brand',
  'Theme settings',
];

/** Someone who signs in with an e-mail and a password. */
export interface Person {
  email: string;
  password: string;
}

/** A person added to `tenant`'s business with `role` (as the operator adds one), signing in with TEST_PASSWORD. */
export async function addMember(server: TestServer, tenant: Tenant, role: MembershipRole, person: { email: string; name: string }): Promise<Person> {
  const em = server.orm.em.fork();
  const user = await createUser(em, { email: person.email, password: TEST_PASSWORD, name: person.name });
  em.create(Membership, { user: user.id, business: tenant.businessId, role });
  await em.flush();
  return { email: user.email, password: TEST_PASSWORD };
}

/** What a portal test file starts from; `staff`, `mail` and `receiver` are there when asked for. */
export interface Portal {
  server: TestServer;
  /** The business's owner (createTenant), with an integration token for `api`. */
  tenant: Tenant;
  staff: Person;
  mail: MailBox;
  receiver: Receiver;
}

export interface PortalOptions {
  /** The owner's business, made by createTenant; none without it. */
  business?: string;
  /** A staff member of it, Sana Staff, at staff-<time>@<this domain>. */
  staffDomain?: string;
  /** An SMTP receiver the server mails through (SMTP_URL), started before it and closed after it. */
  mail?: boolean;
  /** A webhook receiver, with WEBHOOK_ALLOW_PRIVATE_NETWORKS to reach it. */
  receiver?: boolean;
  workers?: boolean;
  env?: Record<string, string | undefined>;
}

/**
 * A portal test file's server and browser (useServerAndBrowser), the portal built, and what `options` ask for. The
 * server listens on a free port named as its PUBLIC_URL: the portal signs in with the service's own address as its
 * redirect. `ready` receives them before the first test (to seed the business). Returns the file's `newPage`, its
 * `portalPage` (requests recorded), `signedIn` (a new page signed in at a path) and `api`, GraphQL as the owner's
 * integration: a call with errors fails the test at once, naming them.
 */
export function usePortal(options: PortalOptions, ready: (portal: Portal) => unknown = () => {}) {
  const portal = {} as Portal;
  const use = options.mail ? useServerBrowserAndMail : useServerAndBrowser;
  const newPage = use(
    async ({ server, mail }: { server: TestServer; mail?: MailBox }) => {
      Object.assign(portal, { server, mail });
      const receiving = options.receiver ? startReceiver() : undefined;
      if (options.business) portal.tenant = await createTenant(server, { businessName: options.business });
      if (options.staffDomain) {
        portal.staff = await addMember(server, portal.tenant, 'staff', { email: `staff-${Date.now()}@${options.staffDomain}`, name: 'Sana Staff' });
      }
      if (receiving) portal.receiver = await receiving;
      await Promise.all([buildPortal(), ready(portal)]);
    },
    async () => {
      const port = await freePort();
      const env = {
        PUBLIC_URL: `http://127.0.0.1:${port}`,
        ...(options.receiver ? { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } : {}),
        ...options.env,
      };
      return { env, port, workers: options.workers };
    },
  );
  afterAll(() => portal.receiver?.close());
  async function api(query: string, variables: Record<string, unknown> = {}, who: Tenant = portal.tenant) {
    const answer = await portal.server.graphql(query, { b: who.businessId, ...variables }, who.headers);
    if (answer.body.errors) throw new Error(JSON.stringify(answer.body.errors));
    return answer.body.data;
  }
  /** A page whose every request is recorded: none may leave 127.0.0.1. */
  async function portalPage() {
    const p = await newPage();
    return { ...p, offsite: offsiteRequests(p.page) };
  }
  /** A new page at the portal's `path`, signed in as `who` (signedInAt). */
  const signedIn = async (who: Person, path: string, options: Parameters<typeof newPage>[0] = {}) =>
    signedInAt((await newPage(options)).page, `${portal.server.url}${path}`, who);
  return { newPage, api, portalPage, signedIn };
}

export const h1 = (page: Page) => page.getByRole('heading', { level: 1 });

/** `page` at the portal's `path` on a desktop, signed in as `who` on the way: back there, its heading drawn, data loaded. */
export async function desktopSignedInAt(page: Page, server: TestServer, who: Person, path: string): Promise<Page> {
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.goto(`${server.url}${path}`);
  await signInOnPage(page, who);
  await page.waitForURL((url) => url.pathname === path.split('?')[0]);
  await h1(page).waitFor();
  await portalLoaded(page);
  return page;
}

/** `page` signed in as `who` from the portal's address `path`, its navigation drawn. */
export async function signInToPortal(page: Page, server: TestServer, who: Person, path = '/portal'): Promise<Page> {
  await page.goto(`${server.url}${path}`);
  await signInOnPage(page, who);
  await page.getByRole('navigation', { name: 'Portal' }).waitFor();
  return page;
}

/** An account form's password chosen and sent with `button`: the portal opens, signed in, on the business `business`. */
export async function choosePasswordInto(page: Page, password: string, button: string, business: string): Promise<void> {
  await page.getByLabel('Choose a password').fill(password);
  await page.getByRole('button', { name: button }).click();
  await page
    .getByTestId('business-name')
    .filter({ hasText: new RegExp(`^${business}$`) })
    .waitFor();
}
