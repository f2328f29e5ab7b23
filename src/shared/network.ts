import { BlockList, isIP } from 'node:net';

/**
 * Where outbound requests (webhooks) may go. Private, loopback and carrier-grade NAT ranges are refused unless the
 * operator allows private networks (tests, local setups); link-local and cloud metadata addresses are refused
 * always: on a cloud host they hand out credentials.
 */
const ALWAYS_BLOCKED = new BlockList();
ALWAYS_BLOCKED.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, incl. 169.254.169.254 (AWS, GCP, Azure metadata)
ALWAYS_BLOCKED.addAddress('100.100.100.200', 'ipv4'); // Alibaba Cloud metadata
ALWAYS_BLOCKED.addSubnet('0.0.0.0', 8, 'ipv4');
ALWAYS_BLOCKED.addSubnet('224.0.0.0', 4, 'ipv4'); // multicast
ALWAYS_BLOCKED.addSubnet('240.0.0.0', 4, 'ipv4'); // reserved, broadcast
ALWAYS_BLOCKED.addSubnet('fe80::', 10, 'ipv6'); // link-local
ALWAYS_BLOCKED.addAddress('fd00:ec2::254', 'ipv6'); // AWS metadata over IPv6
ALWAYS_BLOCKED.addSubnet('ff00::', 8, 'ipv6'); // multicast
ALWAYS_BLOCKED.addAddress('::', 'ipv6');

const PRIVATE = new BlockList();
PRIVATE.addSubnet('127.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('10.0.0.0', 8, 'ipv4');
PRIVATE.addSubnet('172.16.0.0', 12, 'ipv4');
PRIVATE.addSubnet('192.168.0.0', 16, 'ipv4');
PRIVATE.addSubnet('100.64.0.0', 10, 'ipv4'); // carrier-grade NAT
PRIVATE.addSubnet('192.0.0.0', 24, 'ipv4');
PRIVATE.addSubnet('198.18.0.0', 15, 'ipv4'); // benchmarking
PRIVATE.addAddress('::1', 'ipv6');
PRIVATE.addSubnet('fc00::', 7, 'ipv6'); // unique local

/** An IPv4 address written as IPv6 (::ffff:10.0.0.1) is judged as the IPv4 address it is. */
function unmapped(address: string): { address: string; family: 'ipv4' | 'ipv6' } {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  return { address, family: isIP(address) === 6 ? 'ipv6' : 'ipv4' };
}

/** Why `address` (an IP literal) may not be reached, or undefined when it may. */
export function blockedAddressReason(address: string, allowPrivateNetworks: boolean): string | undefined {
  const { address: ip, family } = unmapped(address);
  if (!isIP(ip)) return `${address} is not an IP address`;
  if (ALWAYS_BLOCKED.check(ip, family)) return `${address} is a link-local, metadata or reserved address`;
  if (!allowPrivateNetworks && PRIVATE.check(ip, family)) return `${address} is a private or loopback address`;
  return undefined;
}

export const isLoopback = (address: string) => {
  const { address: ip, family } = unmapped(address);
  return family === 'ipv4' ? ip.startsWith('127.') : ip === '::1';
};
