import { keywordMatcher } from '../../shared/keywords.js';
import type { AlertRule, AlertSeverity } from './alert-rule.entity.js';

/** What a rule is matched against: a completed submission's answers, read with its survey's steps and metrics. */
export interface MatchedAnswers {
  location: string | null;
  survey: string | null;
  /** Each metric rating given, with the metric's name and scale. */
  ratings: Array<{ metric: string; name: string; rating: number; scaleMax: number }>;
  /** Each NPS answer (0 to 10). */
  nps: number[];
  /** Each free-text answer's words, folded once (shared/keywords.ts wordsOf). */
  texts: string[][];
}

export interface RuleMatch {
  rule: AlertRule;
  /** What matched, as a person reads it: "Food quality 1 of 5", "NPS 2 of 10", "keyword: allergic". */
  reason: string;
}

/** Why `rule` matches these answers, or null when it does not (a disabled rule never matches). */
export function matchRule(rule: AlertRule, answers: MatchedAnswers): string | null {
  const when = rule.when;
  if (!rule.enabled) return null;
  if (when.locations?.length && (!answers.location || !when.locations.includes(answers.location))) return null;
  if (when.surveys?.length && (!answers.survey || !when.surveys.includes(answers.survey))) return null;
  if (when.maxRating != null) {
    const low = answers.ratings.filter((r) => r.rating <= when.maxRating!).sort((a, b) => a.rating / a.scaleMax - b.rating / b.scaleMax)[0];
    if (low) return `${low.name} ${low.rating} of ${low.scaleMax}`;
  }
  if (when.maxNps != null) {
    const low = Math.min(...answers.nps);
    if (low <= when.maxNps) return `NPS ${low} of 10`;
  }
  if (when.keywords?.length) {
    const found = keywordMatcher(when.keywords);
    for (const text of answers.texts) {
      const keyword = found(text);
      if (keyword) return `keyword: ${keyword}`;
    }
  }
  return null;
}

const RANK: Record<string, number> = { urgent: 0, normal: 1 } satisfies Record<AlertSeverity, number>;

/** Every rule the answers match, urgent ones first, then oldest first: the first names the case's rule and severity. */
export function matchRules(rules: AlertRule[], answers: MatchedAnswers): RuleMatch[] {
  const matches: RuleMatch[] = [];
  for (const rule of rules) {
    const reason = matchRule(rule, answers);
    if (reason) matches.push({ rule, reason });
  }
  return matches.sort((a, b) => RANK[a.rule.severity] - RANK[b.rule.severity] || (a.rule.id < b.rule.id ? -1 : 1));
}
