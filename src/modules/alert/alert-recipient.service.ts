import type { EntityManager } from '@mikro-orm/postgresql';
import type { Loaders } from '../../kit/graphql/loaders.js';
import { Membership } from '../user/index.js';
import { AlertRecipient, type ConsentStatus } from './alert-recipient.entity.js';
import { answerRecipient, confirmedRecipients, declineNumber, recipientByToken } from './alert.repo.js';
import type { AlertRecipientType, StoredRecipient } from './alert-rule.type.js';

/**
 * Who may be told of an alert: a member (by member or by role) at their account's e-mail, and an address or number
 * outside the business once it confirmed (its alert_recipient row). The case module queues alerts by this rule
 * (confirmedOutside) and checks it again when each goes out (its alert's recipient_id).
 */

/** The confirmation page of an outside recipient (with `/decline`, its one-click refusal). */
export const consentUrl = (publicUrl: string, token: string) => `${publicUrl}/alerts/${token}`;

/** A recipient as consent knows it: the channel and the address. */
export const recipientKey = (channel: string, address: string) => `${channel} ${address}`;

/** Which of these outside recipients of the business confirmed: their ids by recipientKey. */
export async function confirmedOutside(
  em: EntityManager,
  business: string,
  outside: ReadonlyArray<{ channel: string; to: string }>,
): Promise<Map<string, string>> {
  const rows = await confirmedRecipients(em, business, [...new Set(outside.map((r) => r.to))]);
  return new Map(rows.map((r) => [recipientKey(r.channel, r.address), r.id]));
}

const CONSENT_COLUMNS = { orderBy: [{ id: 'asc' as const }], properties: ['channel', 'address', 'status', 'confirmedAt', 'createdAt'] };

/** Each recipient of a rule with what its consent says, through the request's loaders (one statement per kind a page). */
export async function withStatus(loaders: Loaders, business: string, notify: readonly StoredRecipient[]): Promise<AlertRecipientType[]> {
  const outside = notify.some((r) => r.channel) ? await loaders.byForeignKey(AlertRecipient, 'business', CONSENT_COLUMNS).load(business) : [];
  return Promise.all(
    notify.map(async (r): Promise<AlertRecipientType> => {
      if (r.role) return { ...r, status: 'member', confirmedAt: null, askedAt: null };
      if (r.member)
        return {
          ...r,
          status: (await loaders.byId(Membership).load(r.member))?.business === business ? 'member' : 'removed',
          confirmedAt: null,
          askedAt: null,
        };
      const known = outside.find((o) => o.channel === r.channel && o.address === r.to);
      const status: ConsentStatus = known?.status ?? 'pending';
      return { ...r, status, confirmedAt: status === 'confirmed' ? (known?.confirmedAt ?? null) : null, askedAt: known?.createdAt ?? null };
    }),
  );
}

/** What the confirmation page shows: the business's name, the address, and the answer so far. */
export interface Consent {
  business: string;
  businessName: string;
  channel: 'email' | 'sms';
  address: string;
  status: ConsentStatus;
}

/** The recipient a link names (only a well-formed key is looked up: newConsentToken's 22 characters of base64url). */
async function recipientOf(em: EntityManager, token: string) {
  return /^[A-Za-z0-9_-]{16,64}$/.test(token) ? recipientByToken(em, token) : undefined;
}

const consentOfRow = (r: NonNullable<Awaited<ReturnType<typeof recipientOf>>>, status = r.status): Consent => ({
  business: r.business_id,
  businessName: r.business_name,
  channel: r.channel as Consent['channel'],
  address: r.address,
  status,
});

/** What a link's page shows, or null when the link is unknown. Looking changes nothing (link scanners GET too). */
export async function consentOf(em: EntityManager, token: string): Promise<Consent | null> {
  const r = await recipientOf(em, token);
  return r ? consentOfRow(r) : null;
}

/**
 * The recipient's answer from its link: `confirmed` (alerts from now on) or `declined` (never messaged by this
 * business again, and never asked again when a rule names it). The same link may change the answer later.
 */
export async function answerConsent(em: EntityManager, token: string, answer: 'confirmed' | 'declined'): Promise<Consent | null> {
  const r = await recipientOf(em, token);
  if (!r) return null;
  await answerRecipient(em, r.business_id, r.id, answer, new Date());
  return consentOfRow(r, answer);
}

/**
 * An SMS STOP from `phone` (E.164): it is declined as an alert recipient of every business that asked it, as its
 * links' refusal would. Answers those businesses (the inbound door opts the number out of their guest texts too).
 */
export function declineByStop(em: EntityManager, phone: string): Promise<string[]> {
  return declineNumber(em, phone, new Date());
}
