import { adminCommand } from './command.js';
import { rotateSigningKey } from '../modules/oauth/index.js';
import { rotateGuestSessionKey } from '../modules/guest-session/index.js';

/**
 * `rotate-keys`: a new active token-signing key and a new guest-session key. What the old ones signed keeps working:
 * the token key stays published at /oauth/certs until its tokens have expired (1 hour), the guest-session key verifies
 * until its cookies have (7 days). Running servers pick the new keys up within a minute.
 */
export const rotateKeysCommand = adminCommand({
  usage: 'rotate-keys',
  summary: 'Make new active token-signing and guest-session keys; old ones keep verifying until what they signed expires',
  async run(_values, em) {
    const { kid, retired } = await rotateSigningKey(em);
    const guestSession = await rotateGuestSessionKey(em);
    return { object: 'signing_key', kid, active: true, retired, guestSession };
  },
});
