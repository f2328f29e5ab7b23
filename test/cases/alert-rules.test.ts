import { useTenantServer, createTenant } from '../helpers/auth.js';
import { rest, expectError } from '../rest/rest.helpers.js';

// Issue 35: alert rules over REST (GraphQL underneath): their shape, every refusal naming its field, tenancy and scopes.
const fx = useTenantServer();
const base = () => `/v2/businesses/${fx.tenant.businessId}/alert-rules`;
const call = (method: string, path: string, body?: unknown) => rest(fx.server, method, path, { tenant: fx.tenant, body });

describe('alert rules', () => {
  it('are created, read, changed and deleted with the conventions of every resource, each change an event', async () => {
    const location = (await call('POST', `/v2/businesses/${fx.tenant.businessId}/locations`, { name: 'Gulberg' })).body.data.id;
    const created = await call('POST', base(), {
      name: 'Unhappy diners',
      severity: 'urgent',
      when: { maxRating: 2, maxNps: 4, keywords: ['allergic', ' food poisoning '], locations: [location] },
      notify: [{ channel: 'email', to: ' Manager@Example.com ' }, { channel: 'sms', to: '+92 300 1234567' }, { role: 'owner' }],
      escalateAfterMinutes: 30,
    });
    expect(created.status).toBe(201);
    const rule = created.body.data;
    expect(rule).toEqual({
      id: expect.stringMatching(/^alr_/),
      object: 'alertrule',
      business: fx.tenant.businessId,
      name: 'Unhappy diners',
      enabled: true,
      severity: 'urgent',
      when: { maxRating: 2, maxNps: 4, keywords: ['allergic', 'food poisoning'], themes: null, sentiment: null, locations: [location], surveys: null },
      // Outside recipients are listed as asked, not yet agreed (test/cases/alert-consent.test.ts follows them).
      notify: [
        { channel: 'email', to: 'manager@example.com', role: null, member: null, status: 'pending', confirmedAt: null, askedAt: expect.any(Number) },
        { channel: 'sms', to: '+923001234567', role: null, member: null, status: 'pending', confirmedAt: null, askedAt: expect.any(Number) },
        { channel: null, to: null, role: 'owner', member: null, status: 'member', confirmedAt: null, askedAt: null },
      ],
      escalateAfterMinutes: 30,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect((await call('GET', `${base()}/${rule.id}`)).body.data).toEqual(rule);

    const patched = await call('PATCH', `${base()}/${rule.id}`, { enabled: false, when: { keywords: ['rude'] } });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      enabled: false,
      when: { maxRating: null, maxNps: null, keywords: ['rude'], locations: null },
      escalateAfterMinutes: 30,
    });
    const listed = await call('GET', base());
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([rule.id]);

    expect((await call('DELETE', `${base()}/${rule.id}`)).status).toBe(204);
    expect((await call('GET', `${base()}/${rule.id}`)).status).toBe(404);
    const events = await call(
      'GET',
      `/v2/businesses/${fx.tenant.businessId}/events?${new URLSearchParams({ filters: JSON.stringify({ field: 'type', type: 'contains', value: 'alertrule' }) })}`,
    );
    expect(events.body.data.map((e: { type: string }) => e.type).sort()).toEqual(['alertrule.created', 'alertrule.deleted', 'alertrule.updated']);
  });

  it('refuses an invalid rule with a 400 naming each wrong field, and stores nothing', async () => {
    const other = await createTenant(fx.server);
    const foreignLocation = (await rest(fx.server, 'POST', `/v2/businesses/${other.businessId}/locations`, { tenant: other, body: { name: 'Theirs' } })).body
      .data.id;
    const refused = await call('POST', base(), {
      name: ' ',
      severity: 'critical',
      when: { maxNps: 11, keywords: ['', '!!!'], locations: [foreignLocation] },
      notify: [
        { channel: 'email', to: 'not an address' },
        { channel: 'pager', to: 'x' },
        { role: 'staff' },
        { role: 'owner', channel: 'sms', to: '+923001234567' },
      ],
      escalateAfterMinutes: 30,
    });
    expectError(refused, 400, 'validation_failed');
    expect(refused.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(
      [
        'name',
        'severity',
        'when.maxNps',
        'when.keywords[0]',
        'when.keywords[1]',
        'when.locations[0]',
        'notify[0].to',
        'notify[1].channel',
        'notify[2].role',
        'notify[3]',
        'escalateAfterMinutes',
      ].sort(),
    );
    const nothing = await call('POST', base(), { name: 'Nothing', when: {}, notify: [] });
    expectError(nothing, 400, 'validation_failed');
    expect(nothing.body.error.details).toEqual(
      expect.arrayContaining([
        { field: 'when', message: 'give at least one of maxRating, maxNps, keywords, themes and sentiment' },
        { field: 'notify', message: 'give at least one recipient' },
      ]),
    );
    const normal = await call('POST', base(), { name: 'Normal', when: { maxRating: 1 }, notify: [{ role: 'manager' }], escalateAfterMinutes: 5 });
    expect(normal.body.error.details).toEqual([{ field: 'escalateAfterMinutes', message: 'only urgent rules escalate' }]);
    expect((await call('GET', base())).body.data.filter((r: { name: string }) => ['Nothing', 'Normal'].includes(r.name))).toEqual([]);
  });

  it('are at most 100 per business: the 101st is a 409 saying so, and another business is not counted', async () => {
    const t = await createTenant(fx.server);
    const b = `/v2/businesses/${t.businessId}/alert-rules`;
    const rule = (i: number) => ({ name: `Rule ${i}`, when: { keywords: [`word${i}`] }, notify: [{ role: 'owner' }] });
    for (let i = 0; i < 100; i++) expect((await rest(fx.server, 'POST', b, { tenant: t, body: rule(i) })).status).toBe(201);
    const refused = await rest(fx.server, 'POST', b, { tenant: t, body: rule(100) });
    expectError(refused, 409, 'conflict');
    expect(refused.body.error.message).toContain('at most 100 alert rules');
    expect((await rest(fx.server, 'GET', `${b}?pageSize=100`, { tenant: t })).body.total).toBe(100);
    expect((await call('POST', base(), rule(0))).status).toBe(201);
  });

  it("are another business's 404, and need alerts:read and alerts:write", async () => {
    const rule = (await call('POST', base(), { name: 'Mine', when: { maxRating: 1 }, notify: [{ role: 'owner' }] })).body.data;
    const other = await createTenant(fx.server);
    expectError(await rest(fx.server, 'GET', `/v2/businesses/${other.businessId}/alert-rules/${rule.id}`, { tenant: other }), 404, 'not_found');
    expectError(await rest(fx.server, 'GET', `${base()}/${rule.id}`, { tenant: other }), 403);
    const reader = await createTenant(fx.server, { scopes: ['alerts:read'] });
    const readerBase = `/v2/businesses/${reader.businessId}/alert-rules`;
    expect((await rest(fx.server, 'GET', readerBase, { tenant: reader })).status).toBe(200);
    expectError(await rest(fx.server, 'POST', readerBase, { tenant: reader, body: { name: 'x', when: { maxRating: 1 }, notify: [{ role: 'owner' }] } }), 403);
  });
});
