import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks secret: `whsec_` and the standard, padded base64 of 32 random bytes (the HMAC key). */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The key bytes of a secret. Base64url (secrets written before delivery existed) decodes to the same bytes. */
export function secretKey(secret: string): Buffer {
  return Buffer.from(secret.replace(/^whsec_/, '').replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/**
 * `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` per secret, space-separated (during a
 * rotation both the new and the old secret sign, so a receiver may switch at its own pace).
 */
export function signatureHeader(secrets: string[], id: string, timestampSeconds: number, body: string): string {
  const content = `${id}.${timestampSeconds}.${body}`;
  return secrets.map((s) => `v1,${createHmac('sha256', secretKey(s)).update(content).digest('base64')}`).join(' ');
}
