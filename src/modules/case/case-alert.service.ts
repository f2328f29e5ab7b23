import type { EntityManager } from '@mikro-orm/postgresql';
import type { RuleMatch } from '../alert/alert-rule.match.js';
import { normaliseEmail, normalisePhone } from '../order/order.normalise.js';
import type { GuestCase } from './case.entity.js';
import { CaseAlert } from './case-alert.entity.js';
import { memberEmails, wakeCaseWorkers } from './case.repo.js';

/** A recipient as the unique key knows them: the channel and the normalised address. */
const keyOf = (channel: string, address: string) => `${channel} ${address}`;

/**
 * The alerts of a case just opened, in the answer's transaction `tx`: one row per recipient of every matching rule
 * (a role stands for the business's members with it, at their user's e-mail), each recipient once whatever number of
 * rules name them, with the reasons of those rules; and, when an urgent rule asks for escalation, the check due
 * after the shortest of their `escalateAfterMinutes`. The workers are woken at commit.
 */
export async function queueAlerts(tx: EntityManager, opened: GuestCase, matches: RuleMatch[]): Promise<void> {
  const roles = [...new Set(matches.flatMap((m) => m.rule.notify.flatMap((r) => ('role' in r ? [r.role] : []))))];
  const emailsByRole = new Map<string, string[]>();
  for (const role of roles) emailsByRole.set(role, await memberEmails(tx, opened.business, [role]));
  const recipients = new Map<string, { channel: string; address: string; reasons: string[] }>();
  for (const { rule, reason } of matches) {
    for (const r of rule.notify) {
      const addresses: Array<[string, string | null]> =
        'role' in r
          ? (emailsByRole.get(r.role) ?? []).map((e) => ['email', normaliseEmail(e)])
          : [[r.channel, r.channel === 'email' ? normaliseEmail(r.to) : normalisePhone(r.to)]];
      for (const [channel, address] of addresses) {
        if (!address) continue;
        const key = keyOf(channel, address);
        const known = recipients.get(key) ?? { channel, address, reasons: [] };
        if (!known.reasons.includes(reason)) known.reasons.push(reason);
        recipients.set(key, known);
      }
    }
  }
  // Through the unit of work: the case itself is written at the same flush, and the ORM inserts it first.
  const create = (kind: CaseAlert['kind'], channel: string, address: string, reason: string, dueAt: Date) =>
    tx.create(CaseAlert, { business: opened.business, case: opened.id, kind, channel, address, reason: reason.slice(0, 300), dueAt });
  for (const r of recipients.values()) create('alert', r.channel, r.address, r.reasons.join('; '), new Date());
  const escalateAfter = matches
    .filter((m) => m.rule.severity === 'urgent' && m.rule.escalateAfterMinutes != null && m.rule.escalateAfterMinutes > 0)
    .map((m) => m.rule.escalateAfterMinutes!);
  if (escalateAfter.length) create('check', '', '', opened.reason, new Date(opened.openedAt.getTime() + Math.min(...escalateAfter) * 60_000));
  if (recipients.size || escalateAfter.length) await wakeCaseWorkers(tx);
}
