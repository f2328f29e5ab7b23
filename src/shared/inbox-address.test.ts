import { inboxAddress } from './inbox-address.js';

describe('inboxAddress', () => {
  it('reads case, +tags, Gmail dots and googlemail.com as one inbox', () => {
    for (const form of ['anab@gmail.com', 'Ana.B@Gmail.com', ' ana.b+reset1@gmail.com ', 'a.n.a.b+x+y@googlemail.com', 'ANAB@GMAIL.COM.']) {
      expect(inboxAddress(form)).toBe('anab@gmail.com');
    }
  });

  it('keeps dots where the provider may not ignore them, and a local part that is only a tag', () => {
    expect(inboxAddress('Ana.B+news@Example.com')).toBe('ana.b@example.com');
    expect(inboxAddress('+only@example.com')).toBe('+only@example.com');
    expect(inboxAddress('not-an-address')).toBe('not-an-address');
  });
});
