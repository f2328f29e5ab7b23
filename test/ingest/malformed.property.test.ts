import fc from 'fast-check';
import { rows, useWebhookServer } from './ingest-helpers.js';

/**
 * Thousands of generated malformed payloads: only 400/413/415 come back, never a 5xx nor a 200, and nothing is stored.
 * Each payload breaks at least one rule on purpose (a required field missing or of the wrong kind, a bad currency,
 * empty or non-string metadata, bad item shapes, unstorable strings), mixed with arbitrary valid-looking noise.
 */
// Thousands of orders to one business: its webhook quota would refuse most (rate limits: test/rate-limits.test.ts).
const fx = useWebhookServer({ env: { RATE_LIMIT_WEBHOOK_PER_SECOND: '0' } });

const anyJson = fc.jsonValue({ maxDepth: 3 });
const weirdString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udfff', '', ' ', 'Rs.', '1e400', '-5', 'NaN'),
);
const notString = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }), fc.object({ maxDepth: 1 }));
const money = fc.oneof(fc.constantFrom('Rs. 1,250.00', '12', 12.5, '$3'), weirdString, notString, fc.double());
const item = fc.oneof(
  anyJson,
  fc.record(
    {
      itemId: fc.oneof(weirdString, notString),
      name: fc.oneof(weirdString, notString, fc.string({ minLength: 301, maxLength: 320 })),
      quantity: fc.oneof(fc.integer(), fc.double(), weirdString, fc.constant(2 ** 40)),
      unitPrice: money,
      totalPrice: money,
      salesTaxPercent: fc.oneof(fc.double(), weirdString, fc.integer({ min: 101 })),
      salesTaxAmount: money,
      itemComment: fc.oneof(weirdString, notString),
    },
    { requiredKeys: [] },
  ),
);

/** A body that may or may not be valid in its parts... */
const body = fc.record(
  {
    externalOrderId: fc.oneof(weirdString, notString, fc.string({ minLength: 201, maxLength: 210 })),
    total: money,
    currency: fc.oneof(fc.constantFrom('PKR', 'usd', 'XYZ', 'EURO', ''), weirdString, notString),
    metadata: fc.oneof(fc.dictionary(fc.string(), fc.oneof(weirdString, notString), { maxKeys: 3 }), anyJson),
    externalLocationId: fc.oneof(weirdString, notString),
    externalBrandId: fc.oneof(weirdString, notString),
    customerName: fc.oneof(weirdString, notString),
    customerEmail: fc.oneof(weirdString, notString),
    customerPhoneNumber: fc.oneof(weirdString, notString),
    subtotal: money,
    deliveryCharge: money,
    channel: fc.oneof(weirdString, notString),
    payment: fc.oneof(fc.boolean(), weirdString, notString),
    items: fc.oneof(fc.array(item, { maxLength: 4 }), anyJson),
  },
  { requiredKeys: [] },
);

/** ...made certainly malformed by one deliberate break. */
const breaks: fc.Arbitrary<(b: Record<string, unknown>) => unknown>[] = [
  fc.constantFrom('externalOrderId', 'total', 'currency', 'metadata').map((k) => (b) => ({ ...b, [k]: undefined })),
  fc.constant((b) => ({ ...b, currency: 'XYZ' })),
  fc.constant((b) => ({ ...b, metadata: {} })),
  notString.map((v) => (b) => ({ ...b, metadata: { key: v } })),
  fc.constant((b) => ({ ...b, total: 'no digits' })),
  notString.filter((v) => v !== null).map((v) => (b) => ({ ...b, externalOrderId: v })),
  fc.constant((b) => ({ ...b, externalOrderId: 'x\u0000y' })),
  fc.constant((b) => ({ ...b, items: [42] })),
  fc.constant((b) => ({ ...b, items: 'not an array' })),
  fc.constant((b) => ({ ...b, payment: 'true' })),
  anyJson.filter((v) => typeof v !== 'object' || v === null || Array.isArray(v)).map((v) => () => v),
];
const malformed = fc.tuple(body, fc.oneof(...breaks)).map(([b, brk]) => brk(b));

// Raw bodies that are not JSON objects at all, or not JSON.
const raw = fc.oneof(
  fc.string().map((s) => ({ raw: s, type: 'application/json' })),
  fc.string({ minLength: 1 }).map((s) => ({ raw: s, type: 'text/plain' })),
  fc.jsonValue().map((v) => ({ raw: JSON.stringify(v) + '}', type: 'application/json' })),
);

it('thousands of malformed payloads: only 400/413/415, nothing stored', async () => {
  const statuses = new Map<number, number>();
  const count = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
  await fc.assert(
    fc.asyncProperty(fc.array(malformed, { minLength: 20, maxLength: 20 }), async (batch) => {
      const answers = await Promise.all(batch.map((b) => fx.shop.post(b)));
      for (const a of answers) {
        count(a.status);
        if (a.status !== 400) throw new Error(`status ${a.status}: ${JSON.stringify(a.body).slice(0, 300)}`);
        expect(a.body.error.code).toMatch(/^(validation_failed|bad_request)$/);
      }
    }),
    { numRuns: 100 },
  );
  await fc.assert(
    fc.asyncProperty(raw, async ({ raw: text, type }) => {
      const a = await fx.shop.post(null, { raw: text, headers: { 'content-type': type } });
      count(a.status);
      expect([400, 413, 415]).toContain(a.status);
    }),
    { numRuns: 1000 },
  );
  // Over 1 MiB: 413 before the body is read.
  const big = await fx.shop.post(null, { raw: '{"externalOrderId": "x", "metadata": {"pad": "' + 'x'.repeat(1024 * 1024) + '"}}' });
  count(big.status);
  expect(big.status).toBe(413);
  const total = [...statuses.values()].reduce((a, b) => a + b, 0);
  expect(total).toBeGreaterThanOrEqual(3000);
  expect([...statuses.keys()].every((s) => [400, 413, 415].includes(s))).toBe(true);
  for (const table of ['customer_order', 'order_item', 'menu_item', 'event']) {
    const [{ n }] = await rows(fx.server, `select count(*)::int as n from ${table} where business_id = ?`, [fx.shop.businessId]);
    expect({ table, n }).toEqual({ table, n: 0 });
  }
}, 120_000);
