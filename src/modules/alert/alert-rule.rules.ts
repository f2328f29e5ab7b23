import { keywordMatcher } from '../../shared/keywords.js';
import { ILLNESS_WORDS, type SentimentLabel, type ThemeFinding } from '../text/index.js';
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
  /**
   * Each text answer as the workers read it: given only when its analysis is stored (the rules' `themes` and
   * `sentiment` are matched then, and only then; absent at completion, when nothing is read yet).
   */
  analyses?: Array<{ label: SentimentLabel; themes: ThemeFinding[] }>;
}

export interface RuleMatch {
  rule: AlertRule;
  /** What matched, as a person reads it: "Food quality 1 of 5", "NPS 2 of 10", "keyword: allergic". */
  reason: string;
  /** The built-in rule of every business (illness or allergy): no rule of the business, so the case names none. */
  builtIn?: boolean;
}

/**
 * The built-in rule of every business: a text answer with a word of illness or allergy (the lexicon's
 * ILLNESS_WORDS) opens an urgent case whatever else it says, and every owner is told (docs/cases.md).
 */
const ILLNESS_RULE = {
  id: '',
  business: '',
  name: 'Illness or allergy',
  enabled: true,
  severity: 'urgent',
  when: {},
  notify: [{ role: 'owner' }],
  escalateAfterMinutes: null,
} as unknown as AlertRule;
const illnessIn = keywordMatcher(ILLNESS_WORDS);

/** Why the analysis conditions of a rule match (a theme, with its sentiment if asked; or an answer's sentiment). */
function analysisReason(when: AlertRule['when'], analyses: NonNullable<MatchedAnswers['analyses']>): string | null {
  if (when.themes?.length) {
    for (const a of analyses) {
      const found = a.themes.find((t) => when.themes!.includes(t.theme) && (!when.sentiment || t.sentiment === when.sentiment));
      if (found) return `theme: ${found.theme} ${found.sentiment}${found.words.length ? ` (${found.words.join(' ')})` : ''}`;
    }
    return null;
  }
  if (when.sentiment && analyses.some((a) => a.label === when.sentiment)) return `sentiment: ${when.sentiment}`;
  return null;
}

/** Why `rule` matches these answers, or null when it does not (a disabled rule never matches). */
function matchRule(rule: AlertRule, answers: MatchedAnswers): string | null {
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
  if (answers.analyses && (when.themes?.length || when.sentiment)) return analysisReason(when, answers.analyses);
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
  for (const text of answers.texts) {
    const word = illnessIn(text);
    if (word) {
      matches.push({ rule: ILLNESS_RULE, reason: `illness or allergy: ${word}`, builtIn: true });
      break;
    }
  }
  // The built-in rule first among the urgent: it names the case's reason.
  return matches.sort((a, b) => RANK[a.rule.severity] - RANK[b.rule.severity] || Number(!!b.builtIn) - Number(!!a.builtIn) || (a.rule.id < b.rule.id ? -1 : 1));
}
