import { useTestServer, type TestServer } from '../helpers/server.js';
import { createTenant, type Tenant } from '../helpers/auth.js';
import { guestSurvey, GuestAgent } from '../helpers/guest.js';
import { rest, expectError, qs } from '../rest/rest.helpers.js';
import { rows } from '../ingest/ingest-helpers.js';
import { restaurant } from './case.fixtures.js';

// Issue 35: a completed answer that an alert rule matches opens one case, in the answer's own transaction.
let server: TestServer;
useTestServer((s) => (server = s));

/** The alert tests' restaurant (case.fixtures.ts), with its cases as a list answer. */
async function restaurantWithCases() {
  const r = await restaurant(server, 'Lahore Grill');
  return { ...r, cases: async (query = '') => (await r.call('GET', `/cases${query}`)).body };
}

describe('alert rules open cases', () => {
  it("a rating at most maxRating on the metric's own scale, an NPS at most maxNps, a keyword as a whole word; each within its locations and surveys", async () => {
    const r = await restaurantWithCases();
    await r.made('/alert-rules', { name: 'Low taste', when: { maxRating: 3 }, notify: [{ role: 'owner' }] });
    await r.made('/alert-rules', { name: 'Detractor', severity: 'urgent', when: { maxNps: 6, locations: [r.location] }, notify: [{ role: 'owner' }] });
    await r.made('/alert-rules', { name: 'Health', when: { keywords: ['cockroach', 'گندی'], surveys: [r.survey] }, notify: [{ role: 'manager' }] });

    const opened = async (a: Parameters<typeof r.answer>[0]) => {
      const submission = await r.answer(a);
      return (await r.cases()).data.find((c: { submission: string }) => c.submission === submission) ?? null;
    };
    // 3 of 10 matches maxRating 3; 4 of 10 does not (a 4 would be low on a 1-5 scale, not on this one).
    expect(await opened({ taste: 3 })).toMatchObject({ reason: 'Taste 3 of 10', severity: 'normal', status: 'open' });
    expect(await opened({ taste: 4 })).toBeNull();
    // maxNps only at its location.
    expect(await opened({ taste: 9, nps: 6, location: r.location })).toMatchObject({ reason: 'NPS 6 of 10', severity: 'urgent', location: r.location });
    expect(await opened({ taste: 9, nps: 6 })).toBeNull();
    expect(await opened({ taste: 9, nps: 7, location: r.location })).toBeNull();
    // Keywords: whole words, any case and accent, Urdu with or without harakat; not inside another word.
    expect(await opened({ taste: 9, text: 'I saw a COCKROACH under our table' })).toMatchObject({ reason: 'keyword: cockroach' });
    expect(await opened({ taste: 9, text: 'میز بہت گَندی تھی' })).toMatchObject({ reason: 'keyword: گندی' });
    expect(await opened({ taste: 9, text: 'Nothing cockroachy here, lovely' })).toBeNull();
    // The keyword rule is limited to the first survey: the same words through another survey open nothing.
    const takeaway = await r.made('/surveys', { name: 'Takeaway', status: 'active' });
    const takeawayText = await r.made(`/surveys/${takeaway}/steps`, { type: 'text' });
    const elsewhere = await r.call('POST', `/surveys/${takeaway}/submissions`, {
      answers: [{ step: takeawayText, value: 'I saw a COCKROACH under our table' }],
    });
    expect(elsewhere.status).toBe(201);
    expect(elsewhere.body.data).toMatchObject({ survey: takeaway, status: 'completed' });
    expect((await r.cases()).data.find((c: { submission: string }) => c.submission === elsewhere.body.data.id)).toBeUndefined();
    expect(await rows(server, 'select count(*)::int as n from guest_case where submission_id = ?', [elsewhere.body.data.id])).toEqual([{ n: 0 }]);
    // Several rules match: the urgent one names the case.
    expect(await opened({ taste: 2, nps: 0, location: r.location })).toMatchObject({ reason: 'NPS 0 of 10', severity: 'urgent' });
  });

  it('a disabled rule opens nothing; a case has the conventions of every resource and the guest of its order', async () => {
    const r = await restaurantWithCases();
    const rule = await r.made('/alert-rules', { name: 'Low', when: { maxRating: 5 }, notify: [{ role: 'owner' }], enabled: false });
    await r.answer({ taste: 1 });
    expect((await r.cases()).data).toEqual([]);
    await r.call('PATCH', `/alert-rules/${rule}`, { enabled: true });
    const order = await r.made('/orders', {
      externalOrderId: 'G-7',
      total: 1250,
      currency: 'PKR',
      customerName: 'Ayesha',
      customerEmail: 'Ayesha@Example.com',
      customerPhoneNumber: '+923001112233',
    });
    const submission = await r.answer({ taste: 2, order, location: r.location });
    const [opened] = (await r.cases()).data;
    expect(opened).toEqual({
      id: expect.stringMatching(/^case_/),
      object: 'case',
      business: r.tenant.businessId,
      submission,
      order,
      location: r.location,
      survey: r.survey,
      rule,
      severity: 'normal',
      status: 'open',
      assignee: null,
      reason: 'Taste 2 of 10',
      guest: { name: 'Ayesha', email: 'ayesha@example.com', phone: '+923001112233' },
      openedAt: expect.any(Number),
      firstReplyAt: null,
      resolvedAt: null,
      recoveredAt: null,
      recoveredBy: null,
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    const expanded = (await r.call('GET', `/cases/${opened.id}?expand=submission,order,location`)).body.data;
    expect(expanded.submission).toMatchObject({ id: submission, object: 'submission', answers: [expect.objectContaining({ ratings: { [r.taste]: 2 } })] });
    expect(expanded.order).toMatchObject({ id: order, object: 'order', customerName: 'Ayesha' });
    expect(expanded.location).toMatchObject({ id: r.location, name: 'Gulberg' });
    const events = (await r.call('GET', `/events${qs({ filters: { field: 'type', type: 'eq', value: 'case.opened' } })}`)).body.data;
    expect(events.map((e: { data: { object: { id: string } } }) => e.data.object)).toEqual([
      expect.objectContaining({ id: opened.id, submission, order, location: r.location, reason: 'Taste 2 of 10' }),
    ]);
  });

  it('20 guests completing at once for one order open exactly one case; 20 answers at once open 20', async () => {
    const f = await guestSurvey(server, { steps: [['nps', { type: 'nps', required: true }]] });
    const b = `/v2/businesses/${f.business}`;
    expect(
      (await rest(server, 'POST', `${b}/alert-rules`, { tenant: f.tenant, body: { name: 'Any', when: { maxNps: 10 }, notify: [{ role: 'owner' }] } })).status,
    ).toBe(201);
    await f.order('C-1');
    const url = `${f.path}?custom.customOrderId=C-1`;
    const guests = Array.from({ length: 20 }, () => new GuestAgent(server.url));
    const pages = await Promise.all(guests.map((g) => g.get(url)));
    const results = await Promise.all(guests.map((g, i) => g.answer(pages[i], { value: String(i % 11) })));
    expect(results.filter((x) => x.post.status === 303)).toHaveLength(1);
    const cases = (await rest(server, 'GET', `${b}/cases`, { tenant: f.tenant })).body;
    expect(cases.data).toHaveLength(1);

    const apiAnswers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        rest(server, 'POST', `${b}/surveys/${f.survey}/submissions`, { tenant: f.tenant, body: { answers: [{ step: f.steps.nps, value: i % 11 }] } }),
      ),
    );
    expect(apiAnswers.map((a) => a.status)).toEqual(Array(20).fill(201));
    const after = (await rest(server, 'GET', `${b}/cases?pageSize=50`, { tenant: f.tenant })).body.data;
    expect(after).toHaveLength(21);
    expect(new Set(after.map((c: { submission: string }) => c.submission)).size).toBe(21);
    // The database holds the rule too: a second case for one submission is refused.
    const [{ id, submission_id }] = await server.orm.em
      .fork()
      .getConnection()
      .execute(`select id, submission_id from guest_case where business_id = ? limit 1`, [f.business]);
    await expect(
      server.orm.em
        .fork()
        .getConnection()
        .execute(
          `insert into guest_case (id, business_id, submission_id, severity, reason, opened_at, created_at, updated_at) select 'case_X' || id, business_id, submission_id, severity, reason, now(), now(), now() from guest_case where id = ?`,
          [id],
        ),
    ).rejects.toThrow(/guest_case_submission_uq/);
    expect(submission_id).toEqual(expect.stringMatching(/^sub_/));
  });
});

describe('cases', () => {
  let r: Awaited<ReturnType<typeof restaurantWithCases>>;
  let other: Tenant;
  beforeAll(async () => {
    r = await restaurantWithCases();
    other = await createTenant(server);
    await r.made('/alert-rules', { name: 'Low', when: { maxRating: 3 }, notify: [{ role: 'owner' }] });
    await r.made('/alert-rules', { name: 'Urgent', severity: 'urgent', when: { maxNps: 2 }, notify: [{ role: 'owner' }] });
  });

  it('are listed newest first, filtered by status, severity, location and assignee; assigned and resolved by PATCH, each change an event', async () => {
    await r.answer({ taste: 1 });
    await r.answer({ taste: 9, nps: 0, location: r.location });
    const listed = (await r.cases()).data;
    expect(listed.map((c: { reason: string }) => c.reason)).toEqual(['NPS 0 of 10', 'Taste 1 of 10']);
    const [urgent, normal] = listed;
    const member = (await r.call('GET', '/members')).body.data[0].id;

    const patched = await r.call('PATCH', `/cases/${urgent.id}`, { assignee: member, status: 'resolved' });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ assignee: member, status: 'resolved', resolvedAt: expect.any(Number) });
    const filter = (field: string, value: string) => qs({ filters: { field, type: 'eq', value } });
    expect((await r.cases(filter('severity', 'urgent'))).data.map((c: { id: string }) => c.id)).toEqual([urgent.id]);
    expect((await r.cases(filter('status', 'open'))).data.map((c: { id: string }) => c.id)).toEqual([normal.id]);
    expect((await r.cases(filter('location', r.location))).data.map((c: { id: string }) => c.id)).toEqual([urgent.id]);
    expect((await r.cases(filter('assignee', member))).data.map((c: { id: string }) => c.id)).toEqual([urgent.id]);

    const reopened = await r.call('PATCH', `/cases/${urgent.id}`, { status: 'open', assignee: null });
    expect(reopened.body.data).toMatchObject({ status: 'open', resolvedAt: null, assignee: null });
    const updates = (await r.call('GET', `/events${qs({ filters: { field: 'type', type: 'eq', value: 'case.updated' } })}`)).body.data;
    expect(updates.map((e: { data: { object: { status: string } } }) => e.data.object.status)).toEqual(['open', 'resolved']);
  });

  it('refuses an unknown status or a stranger as assignee with a 400, changing nothing', async () => {
    const [c] = (await r.cases()).data;
    const strangers = (await rest(server, 'GET', `/v2/businesses/${other.businessId}/members`, { tenant: other })).body.data[0].id;
    const refused = await r.call('PATCH', `/cases/${c.id}`, { status: 'closed', assignee: strangers });
    expectError(refused, 400, 'validation_failed');
    expect(refused.body.error.details.map((d: { field: string }) => d.field)).toEqual(['status', 'assignee']);
    expect((await r.call('GET', `/cases/${c.id}`)).body.data).toEqual(c);
  });

  it("are another business's 404, need cases:read and cases:write, and are never created by hand", async () => {
    const [c] = (await r.cases()).data;
    expectError(await rest(server, 'GET', `/v2/businesses/${other.businessId}/cases/${c.id}`, { tenant: other }), 404, 'not_found');
    expectError(
      await rest(server, 'PATCH', `/v2/businesses/${other.businessId}/cases/${c.id}`, { tenant: other, body: { status: 'resolved' } }),
      404,
      'not_found',
    );
    expectError(await rest(server, 'GET', `${r.b}/cases/${c.id}`, { tenant: other }), 403);
    const reader = await createTenant(server, { scopes: ['cases:read'] });
    expect((await rest(server, 'GET', `/v2/businesses/${reader.businessId}/cases`, { tenant: reader })).status).toBe(200);
    expectError(await rest(server, 'PATCH', `/v2/businesses/${reader.businessId}/cases/${c.id}`, { tenant: reader, body: { status: 'resolved' } }), 403);
    expect((await r.call('POST', '/cases', { submission: c.submission })).status).toBe(405);
  });
});
