import { createHash } from 'node:crypto';
import { READABLE_ALPHABET } from '../../shared/readable-code.js';

/**
 * Which case thread a guest's SMS belongs to. Every business texts from the service's one number, so the number a
 * text comes from does not say which business it is for: a text joins a thread only when it can be tied to that one
 * thread, and is otherwise held for the operator, never copied to several businesses (docs/cases.md, "The guest's
 * SMS back").
 */

/** A text carrying a thread's reply code joins it while the thread's last SMS to the number is this recent. */
export const CODE_WINDOW_DAYS = 30;
/** A text without a code joins a thread only when one business alone texted the number this recently. */
export const RECENT_WINDOW_DAYS = 7;

/**
 * Held texts are bounded, since anyone can text the number: at most this many from one number are kept (more from it
 * are counted, not kept), and every held text goes after CODE_WINDOW_DAYS, when no thread could still claim it.
 */
export const MAX_HELD_PER_SENDER = 20;

const CODE_LENGTH = 4;

/** The moment `days` before `now`: where a window starts. */
export const daysBefore = (now: Date, days: number) => new Date(now.getTime() - days * 86_400_000);

/**
 * A thread's reply code: 4 readable characters made from its case id, so every SMS of the case carries the same one
 * and nothing is stored. Not a secret: it only chooses among the threads that texted the sender's own number.
 */
function replyCodeOf(caseId: string): string {
  const digest = createHash('sha256').update(caseId).digest();
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += READABLE_ALPHABET[digest[i] % READABLE_ALPHABET.length];
  return code;
}

/** The line every case SMS ends with; GSM-7 characters only (one outside it would cut each part to 70 characters). */
export const replyCodeLine = (caseId: string) => `\n(Ref #${replyCodeOf(caseId)}: keep it in your reply)`;

/** The characters the reply code line takes from an SMS. */
export const REPLY_CODE_ROOM = replyCodeLine('case_').length;

/** The codes a text may carry: whole words of 4 letters and digits, with or without `#`, in any case. */
function codesIn(text: string): Set<string> {
  return new Set([...text.matchAll(/(?<![A-Za-z0-9])#?([A-Za-z0-9]{4})(?![A-Za-z0-9])/g)].map((m) => m[1].toUpperCase()));
}

/** A case thread that texted the number within CODE_WINDOW_DAYS, and when it last did. */
export interface SmsThread {
  caseId: string;
  business: string;
  lastAt: Date;
}

/** Why a text was held: no thread texted the number, codes of several threads, several businesses wrote lately, or the only writer has no recent thread. */
export type HeldReason = 'no_thread' | 'several_threads' | 'several_businesses' | 'not_recent';

export type InboundTie = { caseId: string; business: string; by: 'code' | 'recent' } | { held: HeldReason };

/**
 * The one thread a text joins, or why it is held. `threads`: the case threads that texted the number within
 * CODE_WINDOW_DAYS; `recentWriters`: the businesses that texted it otherwise (feedback requests) within
 * RECENT_WINDOW_DAYS. First the reply code of exactly one of the threads; else, when exactly one business texted the
 * number within RECENT_WINDOW_DAYS, that business's latest thread texted in that time.
 */
export function tieInboundSms(text: string, threads: SmsThread[], recentWriters: string[], now: Date): InboundTie {
  const codes = codesIn(text);
  const coded = threads.filter((t) => codes.has(replyCodeOf(t.caseId)));
  if (coded.length === 1) return { caseId: coded[0].caseId, business: coded[0].business, by: 'code' };
  if (coded.length > 1) return { held: 'several_threads' };
  const since = daysBefore(now, RECENT_WINDOW_DAYS);
  const recent = threads.filter((t) => t.lastAt > since);
  const writers = new Set([...recentWriters, ...recent.map((t) => t.business)]);
  if (writers.size > 1) return { held: 'several_businesses' };
  const latest = recent.sort((a, b) => b.lastAt.getTime() - a.lastAt.getTime())[0];
  if (latest) return { caseId: latest.caseId, business: latest.business, by: 'recent' };
  return { held: threads.length ? 'not_recent' : 'no_thread' };
}
