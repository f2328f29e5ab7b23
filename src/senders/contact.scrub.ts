// Anything shaped like an e-mail address (also URL-encoded), or like a phone number: a run of 8 or more digits.
const EMAIL = /[^\s<>()[\]"',;:]+(?:@|%40)[^\s<>()[\]"',;:]+\.[^\s<>()[\]"',;:]+/gi;
const NUMBER = /(?:\+|%2B)?\d{8,}/gi;
const HIDDEN = '[recipient]';

const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * A provider's error text without the guest's address or number. Providers echo them ("450 <ana@example.com>: try
 * later", "The 'To' number +923001234567 is not valid"), and the text reaches the logs, the request's `error` and its
 * events: the recipient goes in every form it may be echoed in, and so does anything else shaped like a contact.
 */
export function withoutContact(text: string, recipient: string): string {
  const digits = recipient.replace(/\D/g, '');
  const forms = [recipient, encodeURIComponent(recipient), ...(digits.length >= 6 ? [digits] : [])].filter(Boolean);
  const exact = forms.length ? text.replace(new RegExp(forms.map(escaped).join('|'), 'gi'), HIDDEN) : text;
  return exact.replace(EMAIL, HIDDEN).replace(NUMBER, HIDDEN);
}
