import type { SendOutcome, SmsProvider } from '../shared/sender.ports.js';
import { withoutContact } from './contact.scrub.js';

const TIMEOUT_MS = 10_000;

/** POSTs one message; a failure's text never carries the number `to` (withoutContact). */
async function post(url: string, init: RequestInit, provider: string, to: string): Promise<SendOutcome> {
  try {
    const res = await fetch(url, { ...init, method: 'POST', signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
    if (res.ok) return { ok: true };
    const text = (await res.text().catch(() => '')).slice(0, 300);
    // 4xx but 408/429: the provider refused this message (bad number, blocked): no retry.
    const permanent = res.status >= 400 && res.status < 500 && res.status !== 408 && res.status !== 429;
    return { ok: false, permanent, error: withoutContact(`${provider}: HTTP ${res.status} ${text}`.trim(), to) };
  } catch (err) {
    return { ok: false, error: withoutContact(`${provider}: ${(err as Error).message}`, to) };
  }
}

/** Twilio's Messages API over plain HTTPS (TWILIO_API_BASE points it elsewhere, e.g. a local stand-in). */
export class TwilioSms implements SmsProvider {
  readonly name = 'twilio';
  constructor(private readonly settings: { accountSid: string; authToken: string; from: string; apiBase: string }) {}

  send(to: string, body: string): Promise<SendOutcome> {
    const { accountSid, authToken, from, apiBase } = this.settings;
    return post(
      `${apiBase}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Messages.json`,
      {
        headers: {
          authorization: `Basic ${Buffer.from(`${accountSid}:${authToken}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ To: to, From: from, Body: body }).toString(),
      },
      'twilio',
      to,
    );
  }
}

/** Any HTTP gateway that takes `POST {to, body}` as JSON (SMS_GATEWAY_URL). */
export class GatewaySms implements SmsProvider {
  readonly name = 'gateway';
  constructor(private readonly url: string) {}

  send(to: string, body: string): Promise<SendOutcome> {
    return post(this.url, { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ to, body }) }, 'gateway', to);
  }
}
