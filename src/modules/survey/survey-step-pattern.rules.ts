import { RE2JS } from 're2js';

/**
 * A text step's `validation.pattern`, run on RE2 (re2js): time linear in the answer, whatever the pattern, where
 * JavaScript's backtracking RegExp took exponential time on `^(a+)+$`. JavaScript's syntax for named groups and
 * `\u` escapes is translated; what RE2 cannot run in linear time (backreferences, lookarounds) is refused.
 */
const MAX_PATTERN_LENGTH = 500;
/**
 * RE2's program size: the work per character of the answer grows with it (counted repetitions such as `{1,100}`
 * repeat their part), so it is bounded like the answer's length.
 */
const MAX_PATTERN_PROGRAM = 200;

/** Why a pattern is refused, or undefined when it can be run. */
export function patternProblem(pattern: unknown): string | undefined {
  return typeof pattern === 'string' ? compile(pattern).problem : 'must be a string (a regular expression)';
}

type Compiled = { regex: RE2JS; problem?: undefined } | { regex?: undefined; problem: string };

function compile(pattern: string): Compiled {
  if (pattern.length > MAX_PATTERN_LENGTH) return { problem: `must be at most ${MAX_PATTERN_LENGTH} characters` };
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(RE2JS.translateRegExp(pattern));
  } catch (err) {
    const why = (err as Error).message.replace(/^error parsing regexp: /, '');
    return { problem: `must be a regular expression in RE2 syntax, without backreferences or lookarounds (${why})` };
  }
  if (regex.programSize() > MAX_PATTERN_PROGRAM) {
    return {
      problem: `is too complex: ${regex.programSize()} RE2 instructions, the limit is ${MAX_PATTERN_PROGRAM} (counted repetitions such as {1,100} repeat their part)`,
    };
  }
  return { regex };
}

/** Compiled patterns kept, the oldest going first: a survey's steps are answered with the same few patterns. */
const MAX_KEPT = 1_000;
const kept = new Map<string, Compiled>();

/**
 * The pattern ready to run, or the reason it cannot be: a pattern stored before these checks may fail them, and is
 * then not applied (the caller logs it).
 */
export function compiledPattern(pattern: string): Compiled {
  let compiled = kept.get(pattern);
  if (!compiled) {
    compiled = compile(pattern);
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value!);
    kept.set(pattern, compiled);
  }
  return compiled;
}
