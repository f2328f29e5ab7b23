import { adminCommand } from './command.js';
import { rotateSigningKey } from '../oauth/signing-key.service.js';

/**
 * `rotate-keys`: a new active signing key. Tokens signed by the old one keep working: it stays published at
 * /oauth/certs until they have expired (1 hour). Running servers pick the new key up within a minute.
 */
export const rotateKeysCommand = adminCommand({
  usage: 'rotate-keys',
  summary: 'Make a new active token-signing key; old keys stay published until their tokens expire',
  async run(_values, em) {
    const { kid, retired } = await rotateSigningKey(em);
    return { object: 'signing_key', kid, active: true, retired };
  },
});
