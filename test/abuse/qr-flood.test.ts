import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import { jest } from '@jest/globals';
import { tokenOfNewCredential, useTenantServer } from '../helpers/auth.js';
import { ATTACKER, healthzDuring } from '../helpers/from-address.js';
import { API_LIMIT_ON } from '../helpers/server.js';

/**
 * Issue 33, the QR probe: 8 concurrent `GET …/qr?format=png&size=2048` with a surveys:read token froze /healthz for
 * seconds, because every code was drawn on the service's event loop, uncached and charged as one unit. Codes are
 * drawn by a small worker pool (bounded queue), kept in a cache, and charged to the caller's API quota by their cost.
 */
jest.setTimeout(90_000);

type Format = 'png' | 'svg';
const OPTIONS = { margin: 2, errorCorrectionLevel: 'M' as const };

/**
 * What the qrcode package draws for each (text, format, size), with the route's options, in a Node process of its own:
 * inside jest's module sandbox the encoder runs many times slower than in plain Node.
 */
async function drawnByTheEncoder(codes: Array<{ text: string; format: Format; size: number }>): Promise<Buffer[]> {
  const script = `const QRCode = require('qrcode');
    const codes = JSON.parse(process.argv[1]);
    Promise.all(codes.map((c) => c.format === 'svg' ? QRCode.toString(c.text, { ...c.options, type: 'svg' }).then((s) => Buffer.from(s)) : QRCode.toBuffer(c.text, { ...c.options, type: 'png' })))
      .then((all) => process.stdout.write(JSON.stringify(all.map((b) => b.toString('base64')))));`;
  const input = codes.map((c) => ({ text: c.text, format: c.format, options: { ...OPTIONS, width: c.size } }));
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script, JSON.stringify(input)], { maxBuffer: 64 << 20 });
  return (JSON.parse(stdout) as string[]).map((b) => Buffer.from(b, 'base64'));
}

let survey: string;
// The service's default API quota (100 units/s, bursts to 200): what a partner gets.
const fx = useTenantServer({ tenant: { businessName: 'QR Cafe' }, server: { env: API_LIMIT_ON } }, async ({ server, tenant }) => {
  const res = await server.graphql(
    `mutation($b: ID!) { createSurvey(business: $b, input: {name: "Tables", status: active}) { id } }`,
    { b: tenant.businessId },
    tenant.headers,
  );
  survey = res.body.data.createSurvey.id;
  // A running service has answered before: the first request of a process compiles the ORM's and the route's code
  // paths on the event loop, whatever it asks for. A small SVG, so no code the tests ask for is cached.
  const warm = await fetch(`${server.url}/v2/businesses/${tenant.businessId}/surveys/${survey}/qr?format=svg&size=64`, { headers: tenant.headers });
  expect(warm.status).toBe(200);
});

/** A surveys:read token of a credential of its own, so each test draws on a quota of its own. */
const readToken = () => tokenOfNewCredential(fx.server, fx.tenant, 'QR printer', ['surveys:read']);

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** A GET from the attacker's address, the body kept as bytes (a PNG is not text). */
function getFrom(localAddress: string, url: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers, localAddress, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const qr = (token: string, format: Format, size: number) =>
  getFrom(ATTACKER, `${fx.server.url}/v2/businesses/${fx.tenant.businessId}/surveys/${survey}/qr?format=${format}&size=${size}`, {
    authorization: `Bearer ${token}`,
  });

/** Each answer (but refusals) is the code of the link it names, at its size, exactly as the encoder draws it. */
async function expectTheCodes(answers: Answer[], format: Format, sizes: number[]) {
  const drawn = answers.map((answer, i) => ({ answer, size: sizes[i] })).filter(({ answer }) => answer.status !== 429);
  for (const { answer, size } of drawn) {
    expect(answer.status).toBe(200);
    expect(answer.headers['x-survey-link']).toContain(`/survey/${fx.tenant.businessId}/${survey}?ch=qr`);
    if (format === 'png') {
      expect(answer.headers['content-type']).toBe('image/png');
      expect(answer.body.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      expect([answer.body.readUInt32BE(16), answer.body.readUInt32BE(20)]).toEqual([size, size]);
    } else {
      expect(answer.headers['content-type']).toMatch(/^image\/svg\+xml/);
    }
  }
  const expected = await drawnByTheEncoder(drawn.map(({ answer, size }) => ({ text: answer.headers['x-survey-link'] as string, format, size })));
  drawn.forEach(({ answer }, i) => expect(answer.body.equals(expected[i])).toBe(true));
}

/** A refusal for the caller's quota: 429, Retry-After and the error body. */
function expectQuotaRefusal(answer: Answer) {
  expect(answer.status).toBe(429);
  expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  expect(JSON.parse(answer.body.toString('utf8')).error).toEqual(expect.objectContaining({ status: 429, code: 'rate_limited' }));
}

/**
 * The service's event loop's CPU during a flood, at most. Drawn on the loop, one 2048 px code costs it about 30 s here
 * (the service's code runs inside jest's module sandbox, measured on a 2-core machine; ~0.3 s in plain Node), so even
 * one code drawn there fails this; answering the flood and the /healthz probe cost the loop 0.2 to 0.55 s on the same
 * machine, the more the slower the machine's day (a bound of 250 ms failed there with the codes drawn off the loop).
 */
const LOOP_CPU_MS = 1_500;

describe('QR codes under a flood', () => {
  it('8 concurrent 2048 px PNGs leave /healthz answering within 200 ms (p95), and every answer is the right PNG', async () => {
    const token = await readToken();
    const { result, p95, loopCpuMs } = await healthzDuring(fx.server.url, () => Promise.all(Array.from({ length: 8 }, () => qr(token, 'png', 2048))));
    for (const answer of result.filter((a) => a.status === 429)) expectQuotaRefusal(answer);
    expect(result.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(1);
    await expectTheCodes(
      result,
      'png',
      result.map(() => 2048),
    );
    expect(p95).toBeLessThan(200);
    expect(loopCpuMs).toBeLessThan(LOOP_CPU_MS);
  });

  it('12 different 2048 px PNGs at once: drawn off the event loop, and past the caller’s quota a 429, not a queue of work', async () => {
    const token = await readToken();
    const sizes = Array.from({ length: 12 }, (_, i) => 2048 - i);
    const { result, loopCpuMs } = await healthzDuring(fx.server.url, () => Promise.all(sizes.map((size) => qr(token, 'png', size))));
    // Twelve big codes cost far more than a second's quota (and its reserve): some are refused before being drawn.
    expect(result.filter((a) => a.status === 429).length).toBeGreaterThanOrEqual(1);
    for (const answer of result.filter((a) => a.status === 429)) expectQuotaRefusal(answer);
    await expectTheCodes(result, 'png', sizes);
    // Drawn off the loop. The test above asserts the user's view, /healthz's latency; this one what makes it hold, as a
    // latency may also mean that another test file had the machine's two cores.
    expect(loopCpuMs).toBeLessThan(LOOP_CPU_MS);
  });

  it('an SVG weighs far less than a big PNG: 12 different SVGs at once are all answered', async () => {
    const token = await readToken();
    const sizes = Array.from({ length: 12 }, (_, i) => 2048 - i);
    const answers = await Promise.all(sizes.map((size) => qr(token, 'svg', size)));
    expect(answers.map((a) => a.status)).toEqual(sizes.map(() => 200));
    await expectTheCodes(answers, 'svg', sizes);
  });

  it('a code already drawn weighs one unit: 20 copies of a drawn 2048 px PNG at once are all answered', async () => {
    const token = await readToken();
    const first = await qr(token, 'png', 2000);
    await new Promise((r) => setTimeout(r, 1_100)); // the next second's quota
    const answers = await Promise.all(Array.from({ length: 20 }, () => qr(token, 'png', 2000)));
    expect([first, ...answers].map((a) => a.status)).toEqual(Array.from({ length: 21 }, () => 200));
    for (const answer of answers) expect(answer.body.equals(first.body)).toBe(true);
    await expectTheCodes([first], 'png', [2000]);
  });
});

describe('the drawing pool', () => {
  it('runs at most its size at once with a line bounded by cost: beyond it a 503 with Retry-After at once; closed, it refuses', async () => {
    const { drawingCost, QrPool } = await import('../../rest-adapter/qr.pool.js');
    const pool = new QrPool({ size: 1, maxWaitingCost: 2 * drawingCost('png', 1024) });
    const options = { ...OPTIONS, width: 1024 };
    // A burst of small codes weighs little: it all waits its turn.
    const svgs = await Promise.all(Array.from({ length: 30 }, (_, i) => pool.draw(`https://example.com/${i}`, 'svg', options)));
    expect(svgs.every((svg) => svg.startsWith('<svg'))).toBe(true);
    const outcomes = await Promise.allSettled(Array.from({ length: 6 }, (_, i) => pool.draw(`https://example.com/${i}`, 'png', options)));
    const drawn = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(drawn).toHaveLength(3);
    const [expected] = await drawnByTheEncoder([{ text: 'https://example.com/0', format: 'png', size: 1024 }]);
    expect((drawn[0] as PromiseFulfilledResult<Buffer>).value.equals(expected)).toBe(true);
    expect(refused).toHaveLength(3);
    for (const r of refused) {
      expect(r.reason).toEqual(expect.objectContaining({ code: 'unavailable', status: 503 }));
      expect(Number(r.reason.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    }
    await pool.close();
    expect(pool.threads).toBe(0);
    await expect(pool.draw('https://example.com/late', 'svg', options)).rejects.toEqual(expect.objectContaining({ code: 'unavailable' }));
  });
});

describe('the cache of drawn codes', () => {
  it('keeps at most its bytes, dropping the least recently used, and draws a code asked for meanwhile once', async () => {
    const { QrCache } = await import('../../rest-adapter/qr.cache.js');
    const cache = new QrCache(25);
    let draws = 0;
    const draw = (body: string) => () => {
      draws += 1;
      return new Promise<string>((r) => setTimeout(() => r(body), 10));
    };
    const same = await Promise.all([cache.obtain('a', draw('aaaaaaaaaa')), cache.obtain('a', draw('other')), cache.obtain('a', draw('other'))]);
    expect(same).toEqual(['aaaaaaaaaa', 'aaaaaaaaaa', 'aaaaaaaaaa']);
    expect(draws).toBe(1);
    await cache.obtain('b', draw('bbbbbbbbbb'));
    await cache.get('a'); // a is now the most recently used
    await cache.obtain('c', draw('cccccccccc')); // 30 bytes: b goes
    expect(cache.get('b')).toBeUndefined();
    expect(await cache.get('a')).toBe('aaaaaaaaaa');
    expect(await cache.get('c')).toBe('cccccccccc');
    // A refused drawing is not kept: the next request draws again.
    await expect(cache.obtain('d', () => Promise.reject(new Error('busy')))).rejects.toThrow('busy');
    expect(cache.get('d')).toBeUndefined();
  });
});
