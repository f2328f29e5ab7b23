import type { EntityManager } from '@mikro-orm/postgresql';
import { type RuleMatch, confirmedOutside, recipientKey } from '../alert/index.js';
import { normaliseEmail } from '../order/index.js';
import type { GuestCase } from './case.entity.js';
import { CaseAlert } from './case-alert.entity.js';
import { membersReached, wakeCaseWorkers } from './case.repo.js';

/**
 * The alerts of a case just opened, in the answer's transaction `tx`: one row per recipient of every matching rule
 * who may be told (alert-recipient.service.ts: a member, named or by role, at their account's e-mail; an outside
 * address or number only once it confirmed), each recipient once whatever number of rules name them, with the reasons
 * of those rules; and, when an urgent rule asks for escalation, the check due after the shortest of their
 * `escalateAfterMinutes`. The workers are woken at commit.
 */
export async function queueAlerts(tx: EntityManager, opened: GuestCase, matches: RuleMatch[]): Promise<void> {
  const named = matches.flatMap((m) => m.rule.notify);
  const members = await membersReached(tx, opened.business, {
    roles: [...new Set(named.flatMap((r) => ('role' in r ? [r.role] : [])))],
    ids: [...new Set(named.flatMap((r) => ('member' in r ? [r.member] : [])))],
  });
  const confirmed = await confirmedOutside(
    tx,
    opened.business,
    named.flatMap((r) => ('channel' in r ? [r] : [])),
  );
  const recipients = new Map<string, { channel: string; address: string; reasons: string[]; recipient: string | null }>();
  const add = (channel: string, address: string | null, recipient: string | null, reason: string) => {
    if (!address) return;
    const key = recipientKey(channel, address);
    const known = recipients.get(key) ?? { channel, address, reasons: [], recipient };
    if (!known.reasons.includes(reason)) known.reasons.push(reason);
    // An address a member is reached at is the member's, whatever else names it.
    if (!recipient) known.recipient = null;
    recipients.set(key, known);
  };
  for (const { rule, reason } of matches) {
    for (const r of rule.notify) {
      if ('channel' in r) {
        const recipient = confirmed.get(recipientKey(r.channel, r.to));
        if (recipient) add(r.channel, r.to, recipient, reason);
      } else {
        for (const m of members) if ('role' in r ? m.role === r.role : m.id === r.member) add('email', normaliseEmail(m.email), null, reason);
      }
    }
  }
  // Through the unit of work: the case itself is written at the same flush, and the ORM inserts it first.
  const create = (kind: CaseAlert['kind'], channel: string, address: string, reason: string, dueAt: Date, recipient: string | null = null) =>
    tx.create(CaseAlert, { business: opened.business, case: opened.id, kind, channel, address, reason: reason.slice(0, 300), dueAt, recipient });
  for (const r of recipients.values()) create('alert', r.channel, r.address, r.reasons.join('; '), new Date(), r.recipient);
  const escalateAfter = matches
    .filter((m) => m.rule.severity === 'urgent' && m.rule.escalateAfterMinutes != null && m.rule.escalateAfterMinutes > 0)
    .map((m) => m.rule.escalateAfterMinutes!);
  if (escalateAfter.length) create('check', '', '', opened.reason, new Date(opened.openedAt.getTime() + Math.min(...escalateAfter) * 60_000));
  if (recipients.size || escalateAfter.length) await wakeCaseWorkers(tx);
}
