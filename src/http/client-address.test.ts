import type { IncomingMessage } from 'node:http';
import { addressGroup, clientAddress } from './client-address.js';

const request = (peer: string, forwarded?: string | string[]) =>
  ({ socket: { remoteAddress: peer }, headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded } }) as unknown as IncomingMessage;

describe('clientAddress', () => {
  it('is the socket address with no trusted proxy, whatever X-Forwarded-For says', () => {
    expect(clientAddress(request('192.0.2.1', '198.51.100.9'), 0)).toBe('192.0.2.1');
    expect(clientAddress(request('::ffff:192.0.2.1'), 0)).toBe('192.0.2.1');
    expect(clientAddress(request('2001:db8::1'), 0)).toBe('2001:db8::1');
  });

  it('is the N-th X-Forwarded-For entry from the right behind N proxies: what the outermost one saw', () => {
    const forwarded = 'spoofed, 198.51.100.9, 10.0.0.5';
    expect(clientAddress(request('10.0.0.6', forwarded), 1)).toBe('10.0.0.5');
    expect(clientAddress(request('10.0.0.6', forwarded), 2)).toBe('198.51.100.9');
    // Repeated headers are one list, in order.
    expect(clientAddress(request('10.0.0.6', ['spoofed', '198.51.100.9']), 1)).toBe('198.51.100.9');
  });

  it('takes the leftmost entry when there are fewer than N, and the socket address when there are none', () => {
    expect(clientAddress(request('10.0.0.6', '198.51.100.9'), 2)).toBe('198.51.100.9');
    expect(clientAddress(request('10.0.0.6'), 1)).toBe('10.0.0.6');
    expect(clientAddress(request('10.0.0.6', ' , '), 1)).toBe('10.0.0.6');
  });
});

describe('addressGroup', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(addressGroup('127.0.0.2')).toBe('127.0.0.2');
    expect(addressGroup('198.51.100.9')).toBe('198.51.100.9');
  });

  it('reads an IPv6 address as its /64, however it is written', () => {
    const group = '2001:db8:1:2::/64';
    for (const form of [
      '2001:db8:1:2::1',
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0DB8:0001:0002:0:0:0:7',
      '2001:db8:1:2:a::b',
      '2001:db8:1:2::1%eth0',
      '2001:db8:1:2::198.51.100.9',
    ]) {
      expect(addressGroup(form)).toBe(group);
    }
    expect(addressGroup('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(addressGroup('::1')).toBe('0:0:0:0::/64');
    expect(addressGroup('2001:db8::')).toBe('2001:db8:0:0::/64');
    expect(addressGroup('fe80::1')).toBe('fe80:0:0:0::/64');
  });

  it('leaves what is no address as it is', () => {
    expect(addressGroup('unknown')).toBe('unknown');
  });
});
