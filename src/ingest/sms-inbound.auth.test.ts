import { twilioSignature } from './sms-inbound.auth.js';

// Twilio's published example (its security docs and its libraries' tests): auth token 12345, this URL and these POST
// parameters give this signature. A repeated parameter counts once per distinct value, sorted, as twilio-node has it.
const URL = 'https://mycompany.com/myapp.php?foo=1&bar=2';

describe('twilioSignature', () => {
  it("reproduces Twilio's documented example", () => {
    const params = new URLSearchParams({ CallSid: 'CA1234567890ABCDE', Caller: '+14158675309', Digits: '1234', From: '+14158675309', To: '+18005551212' });
    expect(twilioSignature('12345', URL, params)).toBe('RSOYDt4T1cUTdK1PDd93/VVr8B8=');
  });

  it('takes a repeated parameter once per distinct value, sorted', () => {
    const params = new URLSearchParams([
      ['Sid', 'CA123'],
      ['SidAccount', 'AC123'],
      ['Digits', '5678'],
      ['Digits', '1234'],
      ['Digits', '1234'],
    ]);
    expect(twilioSignature('12345', URL, params)).toBe('IK+Dwps556ElfBT0I3Rgjkr1wJU=');
  });

  it('changes with the token, the URL and any parameter', () => {
    const params = new URLSearchParams({ From: '+14158675309', Body: 'Hi' });
    const base = twilioSignature('12345', URL, params);
    expect(twilioSignature('12346', URL, params)).not.toBe(base);
    expect(twilioSignature('12345', `${URL}&x=1`, params)).not.toBe(base);
    expect(twilioSignature('12345', URL, new URLSearchParams({ From: '+14158675309', Body: 'Hi!' }))).not.toBe(base);
  });
});
