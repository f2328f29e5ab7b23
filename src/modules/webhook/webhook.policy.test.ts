import { webhookUrlProblem } from './webhook.policy.js';
import { blockedAddressReason } from '../../shared/network.js';

describe('webhook URLs', () => {
  it('are https to public addresses by default', async () => {
    const policy = { allowPrivateNetworks: false };
    expect(await webhookUrlProblem('https://93.184.215.14/hook', policy)).toBeUndefined();
    for (const [url, problem] of [
      ['not a url', /absolute https URL/],
      ['ftp://93.184.215.14/', /https URL/],
      ['http://93.184.215.14/', /https URL/],
      ['https://user:pw@93.184.215.14/', /credentials/],
      ['https://127.0.0.1/', /private or loopback/],
      ['https://10.1.2.3/', /private or loopback/],
      ['https://192.168.1.1/', /private or loopback/],
      ['https://[::1]/', /private or loopback/],
      ['https://[fd00::1]/', /private or loopback/],
      ['https://[::ffff:10.0.0.1]/', /private or loopback/],
      ['https://169.254.169.254/latest/meta-data', /link-local, metadata/],
      ['https://localhost/', /resolves to .*loopback/],
    ] as const) {
      expect([url, await webhookUrlProblem(url, policy)]).toEqual([url, expect.stringMatching(problem)]);
    }
  });

  it('may reach loopback and private networks when allowed, never link-local or metadata', async () => {
    const policy = { allowPrivateNetworks: true };
    expect(await webhookUrlProblem('http://127.0.0.1:8080/hook', policy)).toBeUndefined();
    expect(await webhookUrlProblem('https://10.1.2.3/', policy)).toBeUndefined();
    expect(await webhookUrlProblem('http://10.1.2.3/', policy)).toMatch(/https URL/); // plain http: loopback only
    expect(await webhookUrlProblem('http://169.254.169.254/', policy)).toMatch(/https URL/);
    expect(await webhookUrlProblem('https://169.254.169.254/', policy)).toMatch(/link-local, metadata/);
    expect(await webhookUrlProblem('https://[fe80::1]/', policy)).toMatch(/link-local/);
    expect(blockedAddressReason('fd00:ec2::254', true)).toMatch(/metadata/);
    expect(blockedAddressReason('100.100.100.200', true)).toMatch(/metadata/);
  });
});
