import { createTenant } from '../helpers/auth.js';
import { useGuestSurvey } from '../helpers/guest.js';

/** Links and QR codes a business prints: Survey.url, surveyLink, REST `url` and GET .../qr. */
let loc: string;
let order: string;
const fx = useGuestSurvey({}, async () => {
  loc = await fx.location('Clifton', { branch: 'KHI-01', code: '7' });
  order = await fx.order('Z-9', 'KHI-01');
});

const base = () => `${fx.server.config.surveyUrl}/survey/${fx.business}/${fx.survey}`;

describe('survey links', () => {
  it('Survey.url and REST url point at the survey page under SURVEY_URL', async () => {
    const d = await fx.c.data(`query($b: ID!, $s: ID!) { survey(business: $b, id: $s) { url } }`, { b: fx.business, s: fx.survey });
    expect(d.survey.url).toBe(base());
    const res = await fetch(`${fx.server.url}/v2/businesses/${fx.business}/surveys/${fx.survey}`, { headers: fx.tenant.headers });
    expect((await res.json()).data.url).toBe(base());
  });

  it("surveyLink carries interface 4.9's parameters for an order, a location and a channel", async () => {
    const link = async (vars: object) =>
      (
        await fx.c.data(
          `query($b: ID!, $s: ID!, $l: ID, $o: ID, $c: LinkChannel) { surveyLink(business: $b, survey: $s, location: $l, orderId: $o, channel: $c) }`,
          { b: fx.business, s: fx.survey, ...vars },
        )
      ).surveyLink;
    expect(await link({})).toBe(base());
    expect(await link({ l: loc, o: order, c: 'sms' })).toBe(
      `${base()}?custom.customOrderId=Z-9&custom.customLocationId=KHI-01&location:metadata=branch.KHI-01&ch=sms`,
    );
    const bare = await fx.location('Bare', {});
    const err = await fx.c.error(`query($b: ID!, $s: ID!, $l: ID) { surveyLink(business: $b, survey: $s, location: $l) }`, {
      b: fx.business,
      s: fx.survey,
      l: bare,
    });
    expect(err.details).toEqual([{ field: 'location', message: expect.stringContaining('no metadata') }]);
  });
});

describe('GET /v2/businesses/{b}/surveys/{s}/qr', () => {
  const qr = (query: string, headers = fx.tenant.headers) =>
    fetch(`${fx.server.url}/v2/businesses/${fx.business}/surveys/${fx.survey}/qr${query}`, { headers });

  it('answers an SVG of the link with ch=qr and the location, named for printing', async () => {
    const res = await qr(`?location=${loc}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/svg+xml');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="your-visit-qr-${loc}.svg"`);
    expect(res.headers.get('x-survey-link')).toBe(`${base()}?location:metadata=branch.KHI-01&ch=qr`);
    expect(await res.text()).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"[^>]*viewBox/);
  });

  it('answers a PNG of the asked size', async () => {
    const res = await qr('?format=png&size=300');
    expect(res.headers.get('content-type')).toBe('image/png');
    const png = Buffer.from(await res.arrayBuffer());
    expect(png.subarray(1, 4).toString()).toBe('PNG');
    expect(png.readUInt32BE(16)).toBe(300);
  });

  it('refuses a bad format or size, a token without surveys:read, another business, an unknown survey', async () => {
    const bad = await qr('?format=gif&size=9');
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.details.map((d: any) => d.field)).toEqual(['format', 'size']);
    const weak = await createTenant(fx.server, { scopes: ['orders:read'] });
    expect((await qr('', { authorization: `Bearer ${weak.token}` })).status).toBe(403);
    expect((await qr('', {})).status).toBe(401);
    const other = await createTenant(fx.server);
    expect((await qr('', other.headers)).status).toBe(403);
    const missing = await fetch(`${fx.server.url}/v2/businesses/${fx.business}/surveys/sur_01ARZ3NDEKTSV4RRFFQ69G5FAV/qr`, { headers: fx.tenant.headers });
    expect(missing.status).toBe(404);
  });
});
