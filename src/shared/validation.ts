import { AppError, type ErrorDetail } from './errors.js';

/**
 * The one validation idiom of every door and module: collect a detail per bad field, then throw one
 * validation_failed naming all of them (Stripe-like `details[{field, message}]`).
 */
export class Checks {
  readonly details: ErrorDetail[] = [];

  fail(field: string, message: string) {
    this.details.push({ field, message });
  }

  text(field: string, value: unknown, opts: { required?: boolean; max?: number } = {}): void {
    if (value === undefined || value === null) {
      if (opts.required) this.fail(field, 'is required');
      return;
    }
    if (typeof value !== 'string') return this.fail(field, 'must be a string');
    if (opts.required && !value.trim()) return this.fail(field, 'must not be empty');
    if (opts.max && value.length > opts.max) this.fail(field, `must be at most ${opts.max} characters`);
  }

  throwIfAny() {
    if (this.details.length) throw AppError.validation(this.details);
  }
}
