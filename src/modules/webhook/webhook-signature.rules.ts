import { createHmac, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';

/** Standard Webhooks secret: `whsec_` and the standard, padded base64 of 32 random bytes (the HMAC key). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a secret. Base64url (secrets written before delivery existed) decodes to the same bytes. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(
    secret
      .replace(/^whsec_/, '')
      .replace(/-/g, '+')
      .replace(/_/g, '/'),
    'base64',
  );
}

/**
 * `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per secret, space-separated (during a
 * rotation both the new and the old secret sign, so a receiver may switch at its own pace).
 */
export function signatureHeader(secrets: string[], id: string, timestampSeconds: number, body: string): string {
  const content = `${id}.${timestampSeconds}.${body}`;
  return secrets.map((s) => `v1,${createHmac('sha256', hmacKey(s)).update(content).digest('base64')}`).join(' ');
}

/** Keys prepared once per secret: decoding and importing a key for every delivery was a visible part of its CPU. */
const keys = new Map<string, KeyObject>();
const MAX_KEYS = 10_000;
function hmacKey(secret: string): KeyObject {
  let key = keys.get(secret);
  if (!key) {
    if (keys.size >= MAX_KEYS) keys.delete(keys.keys().next().value!);
    keys.set(secret, (key = createSecretKey(secretKey(secret))));
  }
  return key;
}
