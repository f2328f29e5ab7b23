import { AppError, type ErrorDetail } from './errors.js';

export interface StringMapRule {
  maxEntries: number;
  maxKey?: number;
  maxValue: number;
  /** At least this many entries (and then the map is required too). */
  minEntries?: number;
  /** A key refused for a reason of its own (e.g. a dot where keys are parsed back out of "<key>.<value>"). */
  badKey?: (key: string) => string | undefined;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The one validation idiom of every door and module: collect a detail per bad field, then throw one
 * validation_failed naming all of them (Stripe-like `details[{field, message}]`).
 */
export class Checks {
  readonly details: ErrorDetail[] = [];

  fail(field: string, message: string) {
    this.details.push({ field, message });
  }

  /** True when `value` passes (absent counts as passing unless required), so a caller can go on to use it. */
  text(field: string, value: unknown, opts: { required?: boolean; max?: number } = {}): boolean {
    if (value === undefined || value === null) {
      if (opts.required) this.fail(field, 'is required');
      return !opts.required;
    }
    if (typeof value !== 'string') return this.failed(field, 'must be a string');
    if (opts.required && !value.trim()) return this.failed(field, 'must not be empty');
    if (opts.max && value.length > opts.max) return this.failed(field, `must be at most ${opts.max} characters`);
    return true;
  }

  /** A JSON object of string values (metadata): bounded in entries, key and value lengths. True when it passes. */
  stringMap(field: string, value: unknown, rule: StringMapRule): boolean {
    const before = this.details.length;
    const atLeast = rule.minEntries === 1 ? 'at least one entry' : `at least ${rule.minEntries} entries`;
    if (value === undefined || value === null) {
      if (rule.minEntries) this.fail(field, `is required (an object of string values with ${atLeast})`);
      return !rule.minEntries;
    }
    if (!isPlainObject(value)) return this.failed(field, 'must be an object of string values');
    const entries = Object.entries(value);
    if (rule.minEntries && entries.length < rule.minEntries) this.fail(field, `must have ${atLeast}`);
    if (entries.length > rule.maxEntries) this.fail(field, `has more than ${rule.maxEntries} entries`);
    for (const [key, v] of entries) {
      const keyProblem = !key
        ? 'keys must not be empty'
        : rule.maxKey && key.length > rule.maxKey
          ? `keys must be at most ${rule.maxKey} characters`
          : rule.badKey?.(key);
      if (keyProblem) this.fail(`${field}.${key}`, keyProblem);
      else if (typeof v !== 'string') this.fail(`${field}.${key}`, 'must be a string');
      else if (v.length > rule.maxValue) this.fail(`${field}.${key}`, `must be at most ${rule.maxValue} characters`);
    }
    return this.details.length === before;
  }

  throwIfAny() {
    if (this.details.length) throw AppError.validation(this.details);
  }

  private failed(field: string, message: string): false {
    this.fail(field, message);
    return false;
  }
}
