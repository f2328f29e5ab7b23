import dns from 'node:dns/promises';
import { isIP } from 'node:net';
import { blockedAddressReason, isLoopback } from '../../shared/network.js';

/**
 * Where webhooks may point, from WEBHOOK_ALLOW_PRIVATE_NETWORKS (the composition root gives it): off, only public
 * https endpoints; on (tests, local setups), also private and loopback ones, and plain http to loopback. Link-local
 * and metadata addresses stay refused either way (src/shared/network.ts).
 */
export interface WebhookPolicy {
  allowPrivateNetworks: boolean;
}

declare module '../../kit/graphql/context.js' {
  interface Services {
    webhooks: WebhookPolicy;
  }
}

const DNS_TIMEOUT_MS = 3_000;

/**
 * Why `raw` cannot be a webhook URL, or undefined. A name is resolved now and refused when any address is
 * blocked; a name that does not resolve (yet) is accepted: every attempt checks the address it connects to.
 */
export async function webhookUrlProblem(raw: string, policy: WebhookPolicy): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute https URL';
  }
  if (url.username || url.password) return 'must not carry credentials';
  if (raw.length > 2048) return 'must be at most 2048 characters';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: string[] = [];
  if (isIP(host)) addresses = [host];
  else {
    try {
      const found = await Promise.race([
        dns.lookup(host, { all: true }),
        new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), DNS_TIMEOUT_MS).unref()),
      ]);
      addresses = found.map((a) => a.address);
    } catch {
      addresses = [];
    }
  }
  if (url.protocol === 'http:') {
    const loopback = addresses.length > 0 && addresses.every(isLoopback);
    if (!(policy.allowPrivateNetworks && loopback)) return 'must be an https URL (plain http only to loopback, with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)';
  } else if (url.protocol !== 'https:') return 'must be an https URL';
  for (const address of addresses) {
    const reason = blockedAddressReason(address, policy.allowPrivateNetworks);
    if (reason) return `must reach a public address: ${url.hostname} ${isIP(host) ? 'is' : 'resolves to'} ${reason.replace(/^\S+ is /, '')}`;
  }
  return undefined;
}
