import type { AdminCommand } from './command.js';
import { rotateSigningKey } from '../oauth/signing-key.service.js';

/**
 * `rotate-keys`: a new active signing key. Tokens signed by the old one keep working: it stays published at
 * /oauth/certs until they have expired (1 hour). Running servers pick the new key up within a minute.
 */
export const rotateKeysCommand: AdminCommand = {
  name: 'rotate-keys',
  summary: 'Make a new active token-signing key; old keys stay published until their tokens expire',
  usage: 'rotate-keys',
  options: {},
  async run(_values, orm) {
    const { kid, retired } = await rotateSigningKey(orm.em.fork());
    return { object: 'signing_key', kid, active: true, retired };
  },
};
