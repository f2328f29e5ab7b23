import { deliveryBody, retryDelay, DELIVERY_LIMITS } from './webhook-delivery.task.js';
import { signatureHeader, secretKey, generateWebhookSecret } from './webhook-signature.rules.js';
import { parseRetryAfter } from '../../senders/http.sender.js';

describe('delivery rules', () => {
  const schedule = [5_000, 300_000];

  it('retries on the schedule with ±20% jitter, then stops', () => {
    expect(retryDelay(schedule, 1, { status: 500 }, () => 0)).toBe(4_000);
    expect(retryDelay(schedule, 1, { status: 500 }, () => 1)).toBe(6_000);
    expect(retryDelay(schedule, 2, { status: null }, () => 0.5)).toBe(300_000);
    expect(retryDelay(schedule, 3, { status: 500 })).toBeUndefined();
  });

  it('honours Retry-After on 429 and 503 only, up to an hour', () => {
    expect(retryDelay(schedule, 1, { status: 429, retryAfterMs: 120_000 })).toBe(120_000);
    expect(retryDelay(schedule, 1, { status: 503, retryAfterMs: 86_400_000 })).toBe(3_600_000);
    expect(retryDelay(schedule, 1, { status: 500, retryAfterMs: 120_000 }, () => 0.5)).toBe(5_000);
    expect(parseRetryAfter('120')).toBe(120_000);
    expect(parseRetryAfter(new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(55_000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('caps the body at 256 KiB, keeping the object id', () => {
    const event = {
      id: 'evt_1',
      type: 'order.created',
      createdAt: new Date(1),
      business: 'bus_1',
      data: { object: { id: 'ord_1', object: 'order', note: 'x'.repeat(300_000) } },
    };
    const body = deliveryBody(event);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(DELIVERY_LIMITS.maxBodyBytes);
    expect(JSON.parse(body)).toEqual({
      id: 'evt_1',
      type: 'order.created',
      timestamp: 1,
      business: 'bus_1',
      data: { object: { id: 'ord_1', object: 'order' } },
      truncated: true,
    });
  });

  it('signs with Standard Webhooks secrets; old base64url secrets keep their key', () => {
    const secret = generateWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKey(secret)).toHaveLength(32);
    const key = secretKey(secret);
    const old = `whsec_${key.toString('base64url')}`;
    expect(secretKey(old)).toEqual(key);
    expect(signatureHeader([secret], 'whd_1', 1, '{}')).toBe(signatureHeader([old], 'whd_1', 1, '{}'));
    expect(signatureHeader([secret, old], 'whd_1', 1, '{}').split(' ')).toHaveLength(2);
  });
});
