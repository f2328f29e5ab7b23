/** Mail providers known to deliver `a.b@` and `ab@` to one inbox (Gmail ignores dots in the local part). */
const DOTS_IGNORED = new Set(['gmail.com', 'googlemail.com']);

/**
 * The inbox an e-mail address reaches, as one key: lower-cased, without a `+tag` (sub-addressing: `ana+x@` reaches
 * `ana@` at nearly every provider), without dots where the provider ignores them, googlemail.com read as gmail.com.
 * Limits per inbox are keyed by it, so `Ana.B+1@GMail.com` and `anab@gmail.com` count as one target. Never used to
 * send: a message goes to the address as given.
 */
export function inboxAddress(email: string): string {
  const address = email.trim().toLowerCase();
  const at = address.lastIndexOf('@');
  if (at <= 0) return address;
  let local = address.slice(0, at);
  let domain = address.slice(at + 1).replace(/\.+$/, '');
  if (domain === 'googlemail.com') domain = 'gmail.com';
  const plus = local.indexOf('+');
  if (plus > 0) local = local.slice(0, plus);
  if (DOTS_IGNORED.has(domain)) local = local.replace(/\./g, '') || local;
  return `${local}@${domain}`;
}
