import { jest } from '@jest/globals';
import { createHash } from 'node:crypto';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { guestSurvey, GuestAgent, type GuestSurveyFixture } from '../helpers/guest.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { startMailBox, type MailBox } from '../helpers/smtp.js';
import { leaves, parseAddress, parseMime } from '../helpers/mime.js';
import { rest, expectError } from '../rest/rest.helpers.js';
import { postWebhook, rows, uniqueId } from '../ingest/ingest-helpers.js';
import { connectCustomIntegration } from '../../src/modules/integration/custom-integration.service.js';
import { startFeedbackRequests, type FeedbackRequestWorkers } from '../../src/worker/feedback-request.runner.js';
import { createLogger } from '../../src/http/logger.js';
import { whiteContrast } from '../../src/modules/business/brand.rules.js';
import { jpg, png, svg, truncatedPng, webp } from './brand-images.js';

/**
 * Issue 36, the business's face: its fields over GraphQL and REST (contrast, https, e-mail checked), the logo's
 * upload (decoded, never trusted) and address, and the brand where the guest looks: the survey pages, the feedback
 * e-mail (read as a mail client reads it: From, Reply-To, subject, the HTML part) and the SMS.
 */
jest.setTimeout(60_000);

let server: TestServer;
let mail: MailBox;
let sms: Receiver;
let worker: FeedbackRequestWorkers | undefined;

beforeAll(async () => {
  mail = await startMailBox();
  sms = await startReceiver(() => ({ status: 201, body: '{}' }));
  server = await startTestServer({ env: { SMTP_URL: mail.url, MAIL_FROM: 'Feedback <no-reply@example.com>', SMS_GATEWAY_URL: `${sms.url}/sms` } });
  worker = await startFeedbackRequests({
    orm: server.orm,
    logger: createLogger('silent'),
    config: { ...server.config, surveyUrl: server.url },
    services: server.services,
  });
});
afterAll(async () => {
  await worker?.stop();
  await server?.stop();
  await mail?.close();
  await sms?.close();
});

const BRAND = {
  displayName: 'Karahi House — Clifton',
  brandColor: '#14532D',
  reviewUrl: 'https://maps.example.com/karahi-house',
  replyTo: 'manager@karahi.example',
};
const b = (tenant: Tenant) => `/v2/businesses/${tenant.businessId}`;

async function upload(tenant: Tenant, body: Buffer, type: string, business = tenant.businessId) {
  const res = await fetch(`${server.url}/v2/businesses/${business}/logo`, {
    method: 'PUT',
    headers: { ...tenant.headers, 'content-type': type },
    body: new Uint8Array(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

describe('the business over the API', () => {
  it('GET and PATCH /v2/businesses/{business}: displayName defaults to name; the fields are checked; GraphQL the same', async () => {
    const tenant = await createTenant(server, { businessName: 'Karahi House' });
    const got = await rest(server, 'GET', b(tenant), { tenant });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({
      object: 'business',
      data: expect.objectContaining({
        id: tenant.businessId,
        object: 'business',
        name: 'Karahi House',
        displayName: 'Karahi House',
        brandColor: null,
        logoUrl: null,
        reviewUrl: null,
        replyTo: null,
      }),
    });

    const patched = await rest(server, 'PATCH', b(tenant), { tenant, body: BRAND });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toEqual(expect.objectContaining({ name: 'Karahi House', ...BRAND }));

    const bad = await rest(server, 'PATCH', b(tenant), {
      tenant,
      body: { displayName: 'x'.repeat(81), reviewUrl: 'http://maps.example.com/x', replyTo: 'not an address', brandColor: 'green' },
    });
    expectError(bad, 400);
    expect(bad.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'displayName', message: 'must be at most 80 characters' },
        { field: 'reviewUrl', message: 'must be an https URL of at most 2000 characters' },
        { field: 'replyTo', message: 'must be an e-mail address' },
        { field: 'brandColor', message: 'must be a colour written #RRGGBB, such as #1D4ED8' },
      ]),
    );

    const gql = await server.graphql(
      'mutation($id: ID!, $i: UpdateBusinessInput!) { updateBusiness(id: $id, input: $i) { displayName brandColor reviewUrl replyTo } }',
      { id: tenant.businessId, i: { displayName: null, brandColor: '#7c2d12' } },
      tenant.headers,
    );
    expect(gql.body).toEqual({
      data: { updateBusiness: { displayName: 'Karahi House', brandColor: '#7C2D12', reviewUrl: BRAND.reviewUrl, replyTo: BRAND.replyTo } },
    });
  });

  it('refuses a brand colour white text cannot be read on (WCAG AA 4.5:1), saying so', async () => {
    const tenant = await createTenant(server);
    for (const color of ['#FFFF00', '#F59E0B', '#22C55E', '#3B82F6']) {
      expect(whiteContrast(color)).toBeLessThan(4.5);
      const res = await rest(server, 'PATCH', b(tenant), { tenant, body: { brandColor: color } });
      expectError(res, 400);
      expect(res.body.error.details).toEqual([
        {
          field: 'brandColor',
          message: expect.stringMatching(new RegExp(`^white text on ${color} has a contrast of \\d\\.\\d\\d:1, under the 4\\.5:1 WCAG AA asks for`)),
        },
      ]);
    }
    // #767676 is the lightest grey that passes; black and the default blue pass.
    for (const color of ['#767676', '#000000', '#1D4ED8'])
      expect((await rest(server, 'PATCH', b(tenant), { tenant, body: { brandColor: color } })).status).toBe(200);
    expect((await rest(server, 'PATCH', b(tenant), { tenant, body: { brandColor: '#777777' } })).status).toBe(400);
  });

  it('tenant isolation: another business cannot be read, changed or given a logo; writing needs business:write, reading business:read', async () => {
    const mine = await createTenant(server);
    const other = await createTenant(server);
    await rest(server, 'PATCH', b(other), { tenant: other, body: { replyTo: 'secret@other.example' } });
    expectError(await rest(server, 'GET', b(other), { tenant: mine }), 403, 'forbidden');
    expectError(await rest(server, 'PATCH', b(other), { tenant: mine, body: { displayName: 'Hijacked' } }), 403, 'forbidden');
    const logo = await upload(mine, png(), 'image/png', other.businessId);
    expect(logo.status).toBe(403);
    expect(logo.body.error.code).toBe('forbidden');
    const gql = await server.graphql(
      'mutation($id: ID!) { updateBusiness(id: $id, input: {displayName: "Hijacked"}) { id } }',
      { id: other.businessId },
      mine.headers,
    );
    expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
    expect((await rest(server, 'GET', b(other), { tenant: other })).body.data.displayName).not.toBe('Hijacked');

    const reader = await createTenant(server, { scopes: ['surveys:read'] });
    expectError(await rest(server, 'PATCH', b(reader), { tenant: reader, body: { displayName: 'No' } }), 403, 'forbidden');
    expect((await upload(reader, png(), 'image/png')).status).toBe(403);
    expect(
      (await fetch(`${server.url}${b(reader)}/logo`, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: new Uint8Array(png()) })).status,
    ).toBe(401);
    // Reading the settings needs business:read; business(id) answers without it, as before, but not its replyTo.
    expectError(await rest(server, 'GET', b(reader), { tenant: reader }), 403, 'forbidden');
    const identity = await server.graphql('query($id: ID!) { business(id: $id) { id displayName } }', { id: reader.businessId }, reader.headers);
    expect(identity.body.data.business.id).toBe(reader.businessId);
    const field = await server.graphql('query($id: ID!) { business(id: $id) { replyTo } }', { id: reader.businessId }, reader.headers);
    expect(field.body.errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('the logo', () => {
  it('PNG, JPEG and WebP are decoded and stored; the address carries the content hash and is cached for ever', async () => {
    const tenant = await createTenant(server);
    for (const [body, type, ext] of [
      [jpg(), 'image/jpeg', 'jpg'],
      [webp(), 'image/webp', 'webp'],
      [png(), 'image/png', 'png'],
    ] as const) {
      const res = await upload(tenant, body, type);
      expect(res.status).toBe(200);
      const hash = createHash('sha256').update(body).digest('hex');
      // On the service's public address (SURVEY_URL); fetched here from the test server itself.
      expect(res.body.data.logoUrl).toBe(`${server.config.surveyUrl}/logos/${tenant.businessId}/${hash}.${ext}`);
      const served = await fetch(server.url + new URL(res.body.data.logoUrl).pathname);
      expect(served.status).toBe(200);
      expect(served.headers.get('content-type')).toBe(type);
      expect(served.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(Buffer.from(await served.arrayBuffer()).equals(body)).toBe(true);
    }
    const now = (await rest(server, 'GET', b(tenant), { tenant })).body.data.logoUrl as string;
    expect(now).toMatch(/\.png$/);
    // The address of a logo replaced since, and of another business's logo under this business, answer 404.
    const hashOfJpg = createHash('sha256').update(jpg()).digest('hex');
    expect((await fetch(`${server.url}/logos/${tenant.businessId}/${hashOfJpg}.jpg`)).status).toBe(404);
    const other = await createTenant(server);
    expect((await fetch(server.url + new URL(now).pathname.replace(tenant.businessId, other.businessId))).status).toBe(404);
  });

  it('refuses: too large (413), not an image, SVG, a header over garbage, a body that is not what Content-Type says', async () => {
    const tenant = await createTenant(server);
    const big = Buffer.concat([png(), Buffer.alloc(512 * 1024)]);
    const tooLarge = await upload(tenant, big, 'image/png');
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error.code).toBe('payload_too_large');

    const text = await upload(tenant, Buffer.from('hello, this is not an image at all'), 'image/png');
    expect(text.status).toBe(400);
    expect(text.body.error.message).toBe('The logo was refused: the body is not a PNG, JPEG or WebP image');

    const svgDeclared = await upload(tenant, svg(), 'image/svg+xml');
    expect(svgDeclared.status).toBe(415);
    expect(svgDeclared.body.error.message).toContain('SVG is not accepted');
    const svgDisguised = await upload(tenant, svg(), 'image/png');
    expect(svgDisguised.status).toBe(400);
    expect(svgDisguised.body.error.message).toContain('SVG is not accepted');

    const truncated = await upload(tenant, truncatedPng(), 'image/png');
    expect(truncated.status).toBe(400);
    expect(truncated.body.error.message).toMatch(/could not be decoded/);

    const mismatch = await upload(tenant, jpg(), 'image/png');
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.error.message).toBe('The logo was refused: the body is image/jpeg, not image/png as Content-Type says');

    const huge = await upload(tenant, png(5000, 1), 'image/png');
    expect(huge.status).toBe(400);
    expect(huge.body.error.message).toContain('at most 4096×4096');

    expect((await rest(server, 'GET', b(tenant), { tenant })).body.data.logoUrl).toBeNull();
  });
});

describe('where the guest looks', () => {
  let fx: GuestSurveyFixture;
  let logoUrl: string;
  beforeAll(async () => {
    fx = await guestSurvey(server, { steps: [['nps', { type: 'nps', required: true }]] });
    await rest(server, 'PATCH', b(fx.tenant), { tenant: fx.tenant, body: BRAND });
    logoUrl = (await upload(fx.tenant, png(), 'image/png')).body.data.logoUrl;
  });

  it('every survey page shows the display name and logo, and uses the brand colour under a policy that allows it', async () => {
    const agent = new GuestAgent(server.url);
    // The page cache forgets on the change's NOTIFY, a moment after the commit.
    let page = await agent.get(fx.path);
    for (let i = 0; i < 40 && !page.html.includes('class="brand"'); i++) {
      await new Promise((r) => setTimeout(r, 50));
      page = await agent.get(fx.path);
    }
    const logoPath = new URL(logoUrl).pathname;
    const header = /<header>(.*?)<\/header>/s.exec(page.html)?.[1] ?? '';
    expect(header).toContain(`<img src="${logoPath}" alt=""`);
    expect(/<p class="name" dir="auto">(.*?)<\/p>/.exec(header)?.[1]).toBe('Karahi House — Clifton');
    expect(page.html).toContain('<style>:root{--brand:#14532D}</style>');
    const csp = page.headers.get('content-security-policy')!;
    const hash = `'sha256-${createHash('sha256').update(':root{--brand:#14532D}').digest('base64')}'`;
    expect(csp).toContain(hash);
    expect(csp).toContain("img-src 'self'");

    const { next } = await agent.answer(page, { value: '2' });
    // The thank-you page: the brand, and the review link for every guest, even one who gave a 2.
    expect(next.html).toContain('<p class="name" dir="auto">Karahi House — Clifton</p>');
    expect(/<a class="review" href="([^"]+)"/.exec(next.html)?.[1]).toBe(BRAND.reviewUrl);
    // Already answered, and closed: still the restaurant's page.
    expect((await agent.get(fx.path)).html).toContain('<p class="name" dir="auto">Karahi House — Clifton</p>');
  });

  /** An order by the custom webhook and the feedback e-mail its flow sends (the flow made once, by the first call). */
  let emailFlow: Promise<string> | undefined;
  const send = async (lang?: string) => {
    emailFlow ??= (async () => {
      const { secret } = await connectCustomIntegration(server.orm.em.fork(), fx.business);
      const flow = await rest(server, 'POST', `${b(fx.tenant)}/feedback-flows`, {
        tenant: fx.tenant,
        body: { name: 'After every order', survey: fx.survey, channels: ['email'], delayMinutes: 0, quietHours: null, throttleDays: 0 },
      });
      expect(flow.status).toBe(201);
      return secret;
    })();
    const secret = await emailFlow;
    const email = `${uniqueId('guest')}@example.com`;
    const res = await postWebhook(
      server,
      fx.business,
      {
        externalOrderId: uniqueId('ord'),
        total: '1250',
        currency: 'PKR',
        customerEmail: email,
        customerName: 'Ada',
        metadata: lang ? { lang } : { source: 'test' },
      },
      { secret },
    );
    expect(res.body).toEqual(expect.objectContaining({ data: expect.anything() }));
    return parseMime((await mail.waitFor((m) => m.to.includes(email), 20_000)).raw);
  };
  /** The HTML part's words, tags dropped and character references decoded. */
  const wordsOf = (html: string) =>
    html
      .replace(/<[^>]+>/g, ' ')
      .replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))
      .replace(/\s+/g, ' ');

  it('the feedback e-mail: from the display name, Reply-To, the subject naming the restaurant (and in Urdu), an HTML part beside the plain one', async () => {
    const message = await send();
    expect(parseAddress(message.headers.from)).toEqual({ name: 'Karahi House — Clifton', address: 'no-reply@example.com' });
    expect(parseAddress(message.headers['reply-to']).address).toBe(BRAND.replyTo);
    expect(message.headers.subject).toBe('How was your order at Karahi House — Clifton?');
    expect(message.type).toBe('multipart/alternative');
    const [plain, html] = leaves(message);
    expect([plain.type, html.type]).toEqual(['text/plain', 'text/html']);
    const link = /(http:\/\/\S+\/r\/[A-Za-z0-9_-]{16})(?![A-Za-z0-9_/-])/.exec(plain.body)![1];

    // The HTML part's elements, attributes decoded: the logo (decorative), the name as text, one button to the link.
    const attrs = (tag: string) =>
      [...html.body.matchAll(new RegExp(`<${tag}\\b([^>]*)>`, 'g'))].map((m) =>
        Object.fromEntries([...m[1].matchAll(/([a-z-]+)="([^"]*)"/g)].map(([, k, v]) => [k, v.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))])),
      );
    const text = wordsOf(html.body);
    expect(attrs('img')).toEqual([expect.objectContaining({ src: expect.stringMatching(/^http:\/\/[^/]+\/logos\//), alt: '' })]);
    expect(new URL(attrs('img')[0].src).pathname).toBe(new URL(logoUrl).pathname);
    const buttons = attrs('a').filter((a) => /background:#14532D/.test(a.style ?? ''));
    expect(buttons).toEqual([expect.objectContaining({ href: link })]);
    expect(text).toContain('Karahi House — Clifton');
    // The same words as the plain part.
    for (const line of plain.body.split(/\r?\n/).filter(Boolean)) expect(text).toContain(line.trim());

    const urdu = await send('ur');
    expect(urdu.headers.subject).toBe('Karahi House — Clifton سے آپ کا آرڈر کیسا رہا؟');
    expect(leaves(urdu).map((p) => p.type)).toEqual(['text/plain', 'text/html']);
    const [urduPlain, urduHtml] = leaves(urdu);
    expect(/<html lang="ur" dir="rtl">/.test(urduHtml.body)).toBe(true);
    // The unsubscribe line in Urdu too, in both parts, before the same link as List-Unsubscribe.
    const unsubscribe = urdu.headers['list-unsubscribe'].slice(1, -1);
    expect(urduPlain.body.trimEnd().split(/\r?\n/).at(-1)).toBe(`یہ پیغامات بند کرنے کے لیے: ${unsubscribe}`);
    expect(wordsOf(urduHtml.body)).toContain(`یہ پیغامات بند کرنے کے لیے: ${unsubscribe}`);
    for (const part of [urduPlain, urduHtml]) expect(part.body).not.toContain('To stop these messages');
  });

  it("the unsubscribe pages (GET and the button's POST) show the display name and logo, in the guest's language", async () => {
    const logoPath = new URL(logoUrl).pathname;
    const brandOf = (html: string) => {
      const header = /<header>(.*?)<\/header>/s.exec(html)?.[1] ?? '';
      return { name: /<p class="name" dir="auto">(.*?)<\/p>/.exec(header)?.[1], logo: /<img src="([^"]*)" alt=""/.exec(header)?.[1] };
    };
    const h1 = (html: string) => /<h1 dir="auto">(.*?)<\/h1>/s.exec(html)?.[1];
    const brandHash = `'sha256-${createHash('sha256').update(':root{--brand:#14532D}').digest('base64')}'`;

    const unsubscribe = (await send()).headers['list-unsubscribe'].slice(1, -1);
    const page = await fetch(server.url + new URL(unsubscribe).pathname);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(brandOf(html)).toEqual({ name: 'Karahi House — Clifton', logo: logoPath });
    expect(/<html lang="en" dir="ltr">/.test(html)).toBe(true);
    expect(h1(html)).toBe('Stop feedback requests?');
    expect(html).toContain('<style>:root{--brand:#14532D}</style>');
    expect(page.headers.get('content-security-policy')).toContain(brandHash);
    // The switcher leads to the same page in Urdu.
    expect(/<a href="([^"]+)" lang="ur"/.exec(html)?.[1].replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n)))).toBe(
      `${new URL(unsubscribe).pathname}?lang=ur`,
    );

    // A guest whose browser asks for Urdu: the page and its button in Urdu; the button's POST answers in Urdu too.
    const urdu = await (await fetch(server.url + new URL(unsubscribe).pathname, { headers: { 'accept-language': 'ur-PK,ur;q=0.9,en;q=0.5' } })).text();
    expect(/<html lang="ur" dir="rtl">/.test(urdu)).toBe(true);
    expect(brandOf(urdu)).toEqual({ name: 'Karahi House — Clifton', logo: logoPath });
    expect(h1(urdu)).toBe('رائے کی درخواستیں بند کریں؟');
    expect(/<button type="submit">(.*?)<\/button>/.exec(urdu)?.[1]).toBe('درخواستیں بند کریں');

    const done = await fetch(server.url + new URL(unsubscribe).pathname + '?lang=ur', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(done.status).toBe(200);
    const doneHtml = await done.text();
    expect(brandOf(doneHtml)).toEqual({ name: 'Karahi House — Clifton', logo: logoPath });
    expect(h1(doneHtml)).toBe('درخواستیں بند ہو گئیں');
    expect(done.headers.get('content-security-policy')).toContain(brandHash);
    // An unknown link: 404, and no business's brand.
    const unknown = await fetch(`${server.url}/r/${'x'.repeat(16)}/unsubscribe`);
    expect(unknown.status).toBe(404);
    expect(brandOf(await unknown.text()).name).toBeUndefined();
  });

  it('the SMS starts with the display name', async () => {
    const { secret } = await connectCustomIntegration(server.orm.em.fork(), fx.business);
    await rest(server, 'POST', `${b(fx.tenant)}/feedback-flows`, {
      tenant: fx.tenant,
      body: {
        name: 'SMS',
        survey: fx.survey,
        channels: ['sms'],
        delayMinutes: 0,
        quietHours: null,
        throttleDays: 0,
        priority: -10,
        conditions: { hasPhone: true },
      },
    });
    const phone = `+92300${String(Math.floor(Math.random() * 1e7)).padStart(7, '0')}`;
    const order = await postWebhook(
      server,
      fx.business,
      { externalOrderId: uniqueId('ord'), total: '900', currency: 'PKR', customerPhoneNumber: phone, metadata: { source: 'test' } },
      { secret },
    );
    expect(order.body).toEqual(expect.objectContaining({ data: expect.anything() }));
    const got = await sms
      .waitFor((r) => r.body.includes(phone), 20_000)
      .catch(async (e) => {
        throw new Error(
          `${e.message} ${JSON.stringify(order.body)} ${JSON.stringify(await rows(server, 'select status, channel, error, reason from feedback_request where order_id = ?', [order.body.data?.id]))}`,
        );
      });
    expect(JSON.parse(got.body).body).toMatch(/^Karahi House — Clifton: Hi there, /);
  });
});
