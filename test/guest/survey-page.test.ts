import { until } from '../helpers/until.js';
import { GuestAgent, guestSurvey, h1, useGuestSurvey } from '../helpers/guest.js';
import { LISTENER_APPLICATION_NAME } from '../../src/kit/signals/pg-listener.js';

/** Issue 12's rules over plain HTTP: what a guest's phone sends, and what the database keeps. */
// The guest pages' own limit stays on here (the API's is off in test servers unless a test turns it on). Each guest
// comes from an X-Forwarded-For address of its own, as written by the one proxy TRUST_PROXY_HOPS=1 trusts.
const fx = useGuestSurvey({ server: { env: { TRUST_PROXY_HOPS: '1' } } });

const agent = (headers: Record<string, string> = {}) =>
  new GuestAgent(fx.server.url, { 'x-forwarded-for': `10.0.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`, ...headers });
const SUB = 'id status completedAt channel source metadata order { id } location { id } answers { step value ratings }';
async function submissions(f = fx, where: object = {}) {
  const d = await f.c.data(
    `query($b: ID!, $s: ID!, $w: SubmissionWhere) { submissions(business: $b, survey: $s, where: $w, pageSize: 100) { total data { ${SUB} } } }`,
    { b: f.business, s: f.survey, w: where },
  );
  return d.submissions as { total: number; data: any[] };
}
async function events(type: string) {
  const d = await fx.c.data(`query($b: ID!) { events(business: $b, pageSize: 100, where: {type: {eq: "${type}"}}) { data { data } } }`, { b: fx.business });
  return d.events.data.map((e: any) => e.data.object);
}

/** Answers the four steps of the fixture; stops after `upTo` steps. */
async function walk(g: GuestAgent, url: string, upTo = 4) {
  let page = await g.get(url);
  const pages = [page];
  const answers: Array<Record<string, string | string[]>> = [
    { [`rating-${fx.metrics.food}`]: '5', [`rating-${fx.metrics.service}`]: '4' },
    { value: '9' },
    { value: 'Takeaway' },
    { value: 'Lovely biryani' },
  ];
  for (const form of answers.slice(0, upTo)) {
    const { post, next } = await g.answer(page, form);
    expect(post.status).toBe(303);
    page = next;
    pages.push(page);
  }
  return pages;
}

describe('the survey page', () => {
  it('opens on the first step: HTML for a phone, progress, escaped, strict CSP, no JSON', async () => {
    const page = await agent().get(fx.path);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(h1(page.html)).toBe('How was it?');
    expect(page.html).toContain('Step 1 of 4');
    expect(page.html).toMatch(/<fieldset[^>]*>\s*<legend><span dir="auto">Food/);
    expect(page.html).toContain('<button type="submit">Next</button>');
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('script-src');
    expect(page.headers.get('referrer-policy')).toBe('same-origin');
    expect(page.headers.get('set-cookie')).toMatch(/guest_session=.*path=\/survey\/bus_.*httponly/i);
    expect(page.html).toMatch(/<input id="website" name="website" type="text" tabindex="-1" autocomplete="off">/);
    expect(page.html).toMatch(/class="hp" aria-hidden="true"/);
  });

  it('walks every step with post/redirect/get, creates the response at the first answer and completes it at the last', async () => {
    const g = agent();
    const before = (await submissions()).total;
    let page = await g.get(fx.path);
    const { post, next } = await g.answer(page, { [`rating-${fx.metrics.food}`]: '5', [`rating-${fx.metrics.service}`]: '4' });
    expect(post.status).toBe(303);
    expect(post.location).toBe(`${fx.path}?step=${fx.steps.nps}`);
    const partial = (await submissions(fx, { status: { eq: 'partial' } })).data;
    expect(partial).toEqual([
      expect.objectContaining({
        status: 'partial',
        completedAt: null,
        source: 'page',
        answers: [{ step: fx.steps.rate, value: null, ratings: { [fx.metrics.food]: 5, [fx.metrics.service]: 4 } }],
      }),
    ]);
    page = next;
    expect(page.html).toContain('Step 2 of 4');
    expect(page.html).toMatch(/<legend><h1><span dir="auto">How likely are you to recommend us/);
    page = (await g.answer(page, { value: '9' })).next;
    expect(h1(page.html)).toBe('How did you order?');
    page = (await g.answer(page, { value: 'Takeaway' })).next;
    expect(page.html).toContain('Step 4 of 4');
    expect(page.html).toContain('<button type="submit">Submit</button>');
    const last = await g.answer(page, { value: 'Lovely <b>biryani</b>' });
    expect(last.post.location).toBe(`${fx.path}/thanks`);
    expect(h1(last.next.html)).toBe('Thank you');

    const all = await submissions();
    expect(all.total).toBe(before + 1);
    const done = all.data.find((s) => s.id === partial[0].id);
    expect(done).toMatchObject({ status: 'completed', completedAt: expect.any(Number) });
    expect(done.answers.map((a: any) => a.value)).toEqual([null, 9, 'Takeaway', 'Lovely <b>biryani</b>']);
    expect((await events('submission.created')).map((s: any) => s.id)).toContain(done.id);
    expect((await events('submission.completed')).find((s: any) => s.id === done.id)).toMatchObject({ status: 'completed' });
    // Reopening on the same device: already answered.
    expect(h1((await g.get(fx.path)).html)).toBe('Already answered');
  });

  it('keeps both answers when one device sends two steps at once (double taps, two tabs), and completes after them', async () => {
    // A step other than the last is stored without a lock: it writes only the response it was decided on, else it is
    // decided again on what the other step stored. Eight devices, each racing two steps, lose no answer.
    const guests = Array.from({ length: 8 }, () => agent());
    const stored = await Promise.all(
      guests.map(async (g) => {
        const first = await g.get(fx.path);
        await g.answer(first, { [`rating-${fx.metrics.food}`]: '2', [`rating-${fx.metrics.service}`]: '3' });
        const [nps, choice] = await Promise.all([g.get(`${fx.path}?step=${fx.steps.nps}`), g.get(`${fx.path}?step=${fx.steps.choice}`)]);
        const posts = await Promise.all([g.answer(nps, { value: '7' }), g.answer(choice, { value: 'Delivery' })]);
        expect(posts.map((p) => p.post.status)).toEqual([303, 303]);
        const last = await g.answer(await g.get(`${fx.path}?step=${fx.steps.text}`), { value: 'Both kept' });
        expect(last.post.location).toBe(`${fx.path}/thanks`);
        return g;
      }),
    );
    const kept = (await submissions()).data.filter((s) => s.answers.some((a: any) => a.value === 'Both kept'));
    expect(kept).toHaveLength(stored.length);
    for (const s of kept) {
      expect(s.status).toBe('completed');
      // In the order they were answered: the two raced steps either way round.
      expect(Object.fromEntries(s.answers.map((a: any) => [a.step, a.ratings ?? a.value]))).toEqual({
        [fx.steps.rate]: { [fx.metrics.food]: 2, [fx.metrics.service]: 3 },
        [fx.steps.nps]: 7,
        [fx.steps.choice]: 'Delivery',
        [fx.steps.text]: 'Both kept',
      });
    }
  });

  it('completes a response with no order at once unless a case opens; a double tap on Submit completes it once', async () => {
    // Its own survey: an alert rule (Food at most 2) must not touch the other tests' answers.
    const f = await guestSurvey(fx.server);
    await f.c.data(`mutation($b: ID!, $i: CreateAlertRuleInput!) { createAlertRule(business: $b, input: $i) { id } }`, {
      b: f.business,
      i: { name: 'Low food', when: { maxRating: 2 }, notify: [{ role: 'owner' }] },
    });
    const lastPage = async (g: GuestAgent, food: string) => {
      let page = await g.get(f.path);
      for (const form of [{ [`rating-${f.metrics.food}`]: food, [`rating-${f.metrics.service}`]: '4' }, { value: '8' }, { value: 'Dine-in' }])
        page = (await g.answer(page, form)).next;
      return page;
    };
    // Each guest taps Submit twice at once: the happy one's completion is written alone, the unhappy one's (a case
    // opens) in a transaction; either way one tap completes and the other is told the survey is answered.
    for (const [food, text] of [
      ['5', 'Lovely'],
      ['1', 'Cold'],
    ]) {
      const g = agent();
      const page = await lastPage(g, food);
      const taps = await Promise.all([g.answer(page, { value: text }), g.answer(page, { value: text })]);
      expect(taps.map((t) => t.post.status).sort()).toEqual([303, 409]);
      expect(h1(taps.find((t) => t.post.status === 409)!.post.html)).toBe('Already answered');
    }

    const done = (await submissions(f, { status: { eq: 'completed' } })).data;
    const byText = (text: string) => done.filter((s) => s.answers.some((a: any) => a.value === text));
    expect([byText('Lovely').length, byText('Cold').length]).toEqual([1, 1]);
    const cases = (await f.c.data(`query($b: ID!) { cases(business: $b) { data { reason submission { id } } } }`, { b: f.business })).cases.data;
    expect(cases).toEqual([{ reason: 'Food 1 of 5', submission: { id: byText('Cold')[0].id } }]);
    const completed = (
      await f.c.data(`query($b: ID!) { events(business: $b, pageSize: 100, where: {type: {eq: "submission.completed"}}) { data { data } } }`, { b: f.business })
    ).events.data;
    expect(completed.map((e: any) => e.data.object.id).sort()).toEqual([byText('Lovely')[0].id, byText('Cold')[0].id].sort());
  });

  it('shows required and invalid answers in an error summary that links to each field, keeping what was typed', async () => {
    const g = agent();
    const page = await g.get(fx.path);
    const { post } = await g.answer(page, { [`rating-${fx.metrics.food}`]: '9' });
    expect(post.status).toBe(422);
    expect(post.html).toMatch(/<div class="error-summary" role="alert"[^>]*tabindex="-1"/);
    expect(post.html).toContain(`<a href="#r-${fx.metrics.food}-0">This answer cannot be accepted`);
    expect(post.html).toContain(`<a href="#r-${fx.metrics.service}-0">Choose a rating for Service</a>`);
    expect(post.html).toContain(`aria-describedby="hint-${fx.metrics.service} err-r-${fx.metrics.service}"`);
    expect(post.html).toMatch(/<title>Error: /);
    expect((await submissions(fx, { status: { eq: 'partial' } })).data.filter((s) => s.answers.some((a: any) => a.ratings?.[fx.metrics.food] === 9))).toEqual(
      [],
    );
  });

  it('answers a friendly HTML 404 for unknown or draft surveys and a closed page for archived ones', async () => {
    const g = agent();
    for (const path of ['/survey/bus_nope/sur_nope', `/survey/${fx.business}/sur_01ARZ3NDEKTSV4RRFFQ69G5FAV`, '/survey/x', `${fx.path}/nothing/here`]) {
      const page = await g.get(path, { accept: 'application/json' });
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(h1(page.html)).toBe('Survey not found');
    }
    const other = await guestSurvey(fx.server, { steps: [['info', { type: 'info', content: { title: 'Hi' } }]] });
    await other.setStatus('draft');
    expect((await g.get(other.path)).status).toBe(404);
    await other.setStatus('archived');
    const closed = await g.get(other.path);
    expect(closed.status).toBe(410);
    expect(h1(closed.html)).toBe('This survey is closed');
  });

  it('refuses posts without the CSRF token, from another site, or without the session cookie', async () => {
    const g = agent();
    const page = await g.get(fx.path);
    const form = { step: page.step!, [`rating-${fx.metrics.food}`]: '3', [`rating-${fx.metrics.service}`]: '3' };
    expect((await g.post(fx.path, form)).status).toBe(403);
    expect((await g.post(fx.path, { ...form, csrf: 'x'.repeat(43) })).status).toBe(403);
    expect((await g.post(fx.path, { ...form, csrf: page.csrf! }, { 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await g.post(fx.path, { ...form, csrf: page.csrf! }, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await new GuestAgent(fx.server.url).post(fx.path, { ...form, csrf: page.csrf! })).status).toBe(403);
    expect((await g.post(fx.path, { ...form, csrf: page.csrf! }, { 'sec-fetch-site': 'same-origin', origin: fx.server.url })).status).toBe(303);
  });

  it('thanks a robot that fills the honeypot and stores nothing', async () => {
    const g = agent();
    const before = (await submissions()).total;
    const page = await g.get(fx.path);
    const { post } = await g.answer(page, { website: 'http://spam.example', [`rating-${fx.metrics.food}`]: '1', [`rating-${fx.metrics.service}`]: '1' });
    expect(post.status).toBe(303);
    expect(post.location).toBe(`${fx.path}/thanks`);
    expect((await submissions()).total).toBe(before);
  });

  it('resumes on the same device where the guest stopped, and starts over on another', async () => {
    const g = agent();
    await walk(g, fx.path, 2);
    const back = await g.get(fx.path);
    expect(h1(back.html)).toBe('How did you order?');
    expect(back.html).toContain('Step 3 of 4');
    const elsewhere = await agent().get(fx.path);
    expect(elsewhere.html).toContain('Step 1 of 4');
  });

  it('decides a step again on what is stored when the response changed elsewhere since this process wrote it', async () => {
    // The process keeps the response it wrote for the device's next request; another process (here: a statement)
    // answers the comment step meanwhile. The next step, decided on the kept copy, must not write over that answer.
    const g = agent();
    const [, afterRating] = await walk(g, fx.path, 1);
    const [stored] = (await submissions(fx, { status: { eq: 'partial' } })).data.filter((s: any) => s.answers.length === 1 && s.answers[0].ratings);
    const sql = fx.server.orm.em.fork().getConnection();
    const id = (
      (await sql.execute(`select id from submission where survey_id = ? and status = 'partial' order by created_at desc limit 1`, [fx.survey])) as Array<{
        id: string;
      }>
    )[0].id;
    expect(stored.id).toBe(id);
    await sql.execute(`update submission set answers = answers || ?::jsonb where id = ?`, [
      JSON.stringify([{ step: fx.steps.text, value: 'Said through another process' }]),
      id,
    ]);
    const { post } = await g.answer(afterRating, { value: '9' });
    expect(post.status).toBe(303);
    const [row] = (await sql.execute(`select answers from submission where id = ?`, [id])) as Array<{ answers: Array<{ step: string; value?: unknown }> }>;
    expect(Object.fromEntries(row.answers.filter((a) => a.value !== undefined).map((a) => [a.step, a.value]))).toEqual({
      [fx.steps.nps]: 9,
      [fx.steps.text]: 'Said through another process',
    });
  });

  it('flags a response completed in under 2 seconds, and not one that took longer', async () => {
    const fast = agent();
    const pages = await walk(fast, fx.path);
    expect(h1(pages.at(-1)!.html)).toBe('Thank you');
    const slow = agent();
    await slow.get(fx.path);
    // The first view is in the signed cookie (it cannot be moved back): this guest really takes longer.
    await new Promise((r) => setTimeout(r, 2_100));
    await walk(slow, fx.path);
    const done = (await submissions(fx, { status: { eq: 'completed' } })).data;
    expect(done.filter((s) => s.metadata.suspectedSpam === 'true').length).toBeGreaterThanOrEqual(1);
    expect(done.filter((s) => s.metadata.suspectedSpam === undefined).length).toBeGreaterThanOrEqual(1);
  });

  it('speaks Urdu right to left by lang= or Accept-Language, with language links', async () => {
    const ur = await agent().get(`${fx.path}?lang=ur`);
    expect(ur.html).toContain('<html lang="ur" dir="rtl">');
    expect(ur.html).toContain('اگلا');
    expect(ur.html).toContain(`href="${fx.path}?lang&#61;en"`);
    const byHeader = await agent({ 'accept-language': 'ur-PK,ur;q=0.9,en;q=0.5' }).get(fx.path);
    expect(byHeader.html).toContain('dir="rtl"');
    const en = await agent({ 'accept-language': 'fr-FR, de;q=0.5' }).get(fx.path);
    expect(en.html).toContain('<html lang="en" dir="ltr">');
  });

  it('offers only the languages its survey chose: no Urdu on an English survey, Urdu first on an Urdu one', async () => {
    const f = await guestSurvey(fx.server, { steps: [['nps', { type: 'nps', required: true }]] });
    const set = async (languages: unknown) =>
      f.c.raw(`mutation($b: ID!, $s: ID!, $l: [String!]) { updateSurvey(business: $b, id: $s, input: {languages: $l}) { languages } }`, {
        b: f.business,
        s: f.survey,
        l: languages,
      });
    // Refused beside the field, nothing changed: an unknown code, none at all, one twice.
    for (const [languages, message] of [
      [['en', 'fr'], 'must be among en, ur (not fr)'],
      [[], 'must name at least one language, or be null for every one'],
      [['ur', 'ur'], 'names a language twice'],
    ] as const) {
      const refused = await set(languages);
      expect(refused.body.errors[0].extensions).toMatchObject({ code: 'BAD_USER_INPUT', details: [{ field: 'languages', message }] });
    }
    expect((await set(['en'])).body.data.updateSurvey.languages).toEqual(['en']);
    // The page's cache hears of the change just after its commit: read until it has.
    const shown = (headers: Record<string, string>, lang: string) =>
      until(
        () => agent(headers).get(f.path),
        (p) => p.html.includes(`<html lang="${lang}"`),
      );
    await shown({ 'accept-language': 'ur-PK,ur;q=0.9' }, 'en');
    // A guest whose phone prefers Urdu, or whose link asks for it, reads the English survey in English, offered nothing else.
    for (const page of [await agent({ 'accept-language': 'ur-PK,ur;q=0.9' }).get(f.path), await agent().get(`${f.path}?lang=ur`)]) {
      expect(page.html).toContain('<html lang="en" dir="ltr">');
      expect(page.html).not.toContain('hreflang="ur"');
    }
    // An Urdu-only survey speaks Urdu even to a browser that asks for English.
    await set(['ur']);
    const ur = await shown({ 'accept-language': 'en-GB,en;q=0.9' }, 'ur');
    expect(ur.html).toContain('<html lang="ur" dir="rtl">');
    expect(ur.html).not.toContain('hreflang="en"');
    // Both again, as every survey before it chose (null): the phone's language, with a link to the other.
    await set(null);
    const both = await until(
      () => agent({ 'accept-language': 'ur' }).get(f.path),
      (p) => p.html.includes('hreflang="en"'),
    );
    expect(both.html).toContain('<html lang="ur" dir="rtl">');
  });
});

describe('the thank-you page', () => {
  it("shows the survey's closing text and the review link to every guest, whatever they rated", async () => {
    const f = await guestSurvey(fx.server, { steps: [['nps', { type: 'nps', required: true }]] });
    await f.c.data(
      `mutation($b: ID!, $s: ID!) { updateSurvey(business: $b, id: $s, input: {closingText: "Shukriya! See you soon.", reviewUrl: "https://maps.example/review?id=1&x=2"}) { id } }`,
      { b: f.business, s: f.survey },
    );
    for (const score of ['0', '10']) {
      const g = agent();
      const { next } = await g.answer(await g.get(f.path), { value: score });
      expect(h1(next.html)).toBe('Thank you');
      expect(next.html).toContain('Shukriya! See you soon.');
      expect(next.html).toContain('<a class="review" href="https://maps.example/review?id&#61;1&#38;x&#61;2" rel="noopener noreferrer">Review us</a>');
    }
    const err = await f.c.error(`mutation($b: ID!, $s: ID!) { updateSurvey(business: $b, id: $s, input: {reviewUrl: "javascript:alert(1)"}) { id } }`, {
      b: f.business,
      s: f.survey,
    });
    expect(err.details).toEqual([{ field: 'reviewUrl', message: 'must be an http or https address' }]);
  });
});

describe('link parameters (interface 4.9)', () => {
  it('links the order and location, records the channel, keeps unknown parameters, skips the location step', async () => {
    const f = await guestSurvey(fx.server, {
      steps: [
        ['where', { type: 'location', required: true }],
        ['nps', { type: 'nps', required: true }],
      ],
    });
    const loc = await f.location('Clifton', { branch: 'KHI-01' });
    const order = await f.order('A-77', 'KHI-01');
    const url = `${f.path}?custom.customOrderId=A-77&location:metadata=branch.KHI-01&ch=qr&table=12&utm_source=<x>`;
    const g = agent();
    const first = await g.get(url);
    expect(first.html).toContain('Step 1 of 1');
    expect(first.html).toContain('How likely are you to recommend us');
    const { post, next } = await g.answer(first, { value: '10' });
    expect(post.location).toBe(`${f.path}/thanks?custom.customOrderId=A-77&location%3Ametadata=branch.KHI-01&ch=qr&table=12&utm_source=%3Cx%3E`);
    expect(h1(next.html)).toBe('Thank you');
    const [s] = (await submissions(f)).data;
    expect(s).toMatchObject({ status: 'completed', channel: 'qr', order: { id: order }, location: { id: loc }, metadata: { table: '12', utm_source: '<x>' } });
    // The same link on another phone: already answered, before anything is stored.
    const again = await agent().get(url);
    expect(h1(again.html)).toBe('Already answered');
    expect((await submissions(f)).total).toBe(1);
  });

  it('skips the location step after an info step too, when the link names the location', async () => {
    const f = await guestSurvey(fx.server, {
      steps: [
        ['hello', { type: 'info', content: { title: 'Welcome' } }],
        ['where', { type: 'location', required: true }],
        ['nps', { type: 'nps', required: true }],
      ],
    });
    const loc = await f.location('DHA', { branch: 'LHE-05' });
    const g = agent();
    const first = await g.get(`${f.path}?location:metadata=branch.LHE-05`);
    expect(first.html).toContain('Step 1 of 2');
    const { post, next } = await g.answer(first, {});
    expect(post.location).toBe(`${f.path}?location%3Ametadata=branch.LHE-05&step=${f.steps.nps}`);
    expect(next.html).toContain('Step 2 of 2');
    const bad = await g.answer(next, { value: '11' });
    expect(bad.post.html).toContain('Step 2 of 2');
    await g.answer(next, { value: '7' });
    expect((await submissions(f)).data[0]).toMatchObject({ status: 'completed', location: { id: loc } });
  });

  it('offers the location step when the link names no location, and stores the chosen one', async () => {
    const f = await guestSurvey(fx.server, { steps: [['where', { type: 'location', required: true }]] });
    const loc = await f.location('Gulshan', { branch: 'KHI-02' });
    const g = agent();
    const page = await g.get(`${f.path}?ch=sms`);
    expect(page.html).toContain('Gulshan');
    expect((await g.answer(page, { value: 'loc_01ARZ3NDEKTSV4RRFFQ69G5FAV' })).post.status).toBe(422);
    await g.answer(page, { value: loc });
    expect((await submissions(f)).data[0]).toMatchObject({ location: { id: loc }, channel: 'sms' });
  });

  it('20 guests completing at once for one order give exactly one completed response', async () => {
    const f = await guestSurvey(fx.server, { steps: [['nps', { type: 'nps', required: true }]] });
    await f.order('C-1');
    const url = `${f.path}?custom.customOrderId=C-1`;
    const guests = Array.from({ length: 20 }, () => agent());
    const pages = await Promise.all(guests.map((g) => g.get(url)));
    const results = await Promise.all(guests.map((g, i) => g.answer(pages[i], { value: String(i % 11) })));
    const statuses = results.map((r) => r.post.status).sort();
    expect(statuses.filter((s) => s === 303)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(19);
    expect(results.filter((r) => r.post.status === 409).every((r) => h1(r.post.html) === 'Already answered')).toBe(true);
    expect((await submissions(f, { status: { eq: 'completed' } })).total).toBe(1);
  });
});

describe('abuse', () => {
  it('allows 10 new responses per address per survey in 10 minutes, then a 429 page with Retry-After', async () => {
    const f = await guestSurvey(fx.server, {
      steps: [
        ['nps', { type: 'nps' }],
        ['text', { type: 'text' }],
      ],
    });
    const ip = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < 10; i++) {
      const g = new GuestAgent(fx.server.url, ip);
      expect((await g.answer(await g.get(f.path), { value: '5' })).post.status).toBe(303);
    }
    const g = new GuestAgent(fx.server.url, ip);
    const { post } = await g.answer(await g.get(f.path), { value: '5' });
    expect(post.status).toBe(429);
    expect(Number(post.headers.get('retry-after'))).toBeGreaterThan(500);
    expect(h1(post.html)).toBe('Too many responses');
    // Another address, or going on with a response already started, is not limited.
    const other = new GuestAgent(fx.server.url, { 'x-forwarded-for': '203.0.113.8' });
    expect((await other.answer(await other.get(f.path), { value: '5' })).post.status).toBe(303);
  });

  it('escapes everything a business or a guest wrote', async () => {
    const f = await guestSurvey(fx.server, {
      name: '<script>alert(1)</script>',
      steps: [['t', { type: 'text', content: { title: '"><img src=x onerror=alert(1)>' } }]],
    });
    const g = agent();
    const page = await g.get(`${f.path}?x="><script>alert(2)</script>`);
    expect(page.html).not.toMatch(/<script|<img/);
    expect(page.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
  });

  it('caps free text', async () => {
    const f = await guestSurvey(fx.server, { steps: [['t', { type: 'text' }]] });
    const g = agent();
    const { post } = await g.answer(await g.get(f.path), { value: 'x'.repeat(5001) });
    expect(post.status).toBe(422);
  });
});

describe("conditional logic (JSON Logic in the step's logic.showIf)", () => {
  it('asks the follow-up only of detractors, and reads link parameters', async () => {
    const f = await guestSurvey(fx.server, { steps: [['nps', { type: 'nps', required: true }]] });
    const why = await f.addStep({
      type: 'text',
      required: true,
      content: { title: 'What went wrong?' },
      logic: { showIf: { and: [{ step: f.steps.nps }, { '<=': [{ var: 'answers.' + f.steps.nps }, 6] }] } },
    });
    await f.addStep({ type: 'info', content: { title: 'QR guests' }, logic: { showIf: { '==': [{ var: 'link.channel' }, 'qr'] } } });
    const happy = agent();
    let page = await happy.get(f.path);
    expect(page.html).toContain('Step 1 of 1');
    expect((await happy.answer(page, { value: '9' })).post.location).toBe(`${f.path}/thanks`);

    const unhappy = agent();
    page = await unhappy.get(`${f.path}?ch=qr`);
    expect(page.html).toContain('Step 1 of 2');
    const { post, next } = await unhappy.answer(page, { value: '3' });
    expect(post.location).toBe(`${f.path}?ch=qr&step=${why}`);
    expect(h1(next.html)).toBe('What went wrong?');
    expect(next.html).toContain('Step 2 of 3');
  });

  it('is validated when a step is created or changed', async () => {
    const f = await guestSurvey(fx.server, { steps: [] });
    const err = await f.c.error(`mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { id } }`, {
      b: f.business,
      s: f.survey,
      i: { type: 'info', logic: { showIf: { eval: ['1'] } } },
    });
    expect(err.details).toEqual([{ field: 'logic.showIf', message: "'eval' is not a JSON Logic operation" }]);
    const nested = await f.c.error(`mutation($b: ID!, $s: ID!, $i: CreateSurveyStepInput!) { createSurveyStep(business: $b, survey: $s, input: $i) { id } }`, {
      b: f.business,
      s: f.survey,
      i: { type: 'info', logic: { showIf: { and: [true, { '<': [1, 2], '>': [2, 1] }] } } },
    });
    expect(nested.details).toEqual([{ field: 'logic.showIf', message: 'and[1]: an operation is an object with exactly one key' }]);
    // Keys other than showIf are the client's own, stored as given (logic was free-form before the page read it).
    await f.addStep({ type: 'info', logic: { myTool: { x: 1 } } });
  });
});

describe('the survey kept in memory for the pages', () => {
  const retitle = (title: string) =>
    fx.c.data(`mutation($b: ID!, $s: ID!, $id: ID!, $i: UpdateSurveyStepInput!) { updateSurveyStep(business: $b, survey: $s, id: $id, input: $i) { id } }`, {
      b: fx.business,
      s: fx.survey,
      id: fx.steps.rate,
      i: { content: { title } },
    });
  const titleShown = async () => h1((await agent().get(fx.path)).html);
  /** The notification arrives just after the change commits: the next views show it within moments. */
  const shows = async (title: string) => {
    for (let i = 0; i < 40 && (await titleShown()) !== title; i++) await new Promise((r) => setTimeout(r, 50));
    expect(await titleShown()).toBe(title);
  };
  // This server's own: test files run side by side on one PostgreSQL, each server listening in its own database.
  const listeners = async () =>
    (await fx.server.orm.em
      .fork()
      .getConnection()
      .execute(`select pid from pg_stat_activity where application_name = ? and datname = current_database()`, [LISTENER_APPLICATION_NAME])) as {
      pid: number;
    }[];

  afterAll(() => retitle('How was it?'));

  it('shows a change at once, and never a stale page while its notification connection is lost and back', async () => {
    expect(await titleShown()).toBe('How was it?');
    await retitle('How was your meal?');
    await shows('How was your meal?');

    // The LISTEN connection dies: until it is back, every view reads the database, so a change shows on the first view.
    const [before] = await listeners();
    await fx.server.orm.em.fork().getConnection().execute(`select pg_terminate_backend(?)`, [before.pid]);
    await new Promise((r) => setTimeout(r, 300));
    await retitle('How was your lunch?');
    expect(await titleShown()).toBe('How was your lunch?');

    // Reconnected (every 2 s), it keeps pages again and forgets them at the next change.
    for (let i = 0; i < 60 && !(await listeners()).some((l) => l.pid !== before.pid); i++) await new Promise((r) => setTimeout(r, 100));
    expect((await listeners()).some((l) => l.pid !== before.pid)).toBe(true);
    await retitle('How was your dinner?');
    await shows('How was your dinner?');
  });
});
