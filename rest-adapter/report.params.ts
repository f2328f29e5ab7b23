import { getNamedType, getNullableType, isEnumType, isListType, isScalarType, type GraphQLField } from 'graphql';
import { AppError } from '../src/shared/errors.js';
import { Checks } from '../src/shared/validation.js';

const NUMERIC = new Set(['Int', 'Float', 'Timestamp']);

/**
 * A report route's query string as the variables of its GraphQL query, typed from the field's arguments: numbers
 * and timestamps (ms) parsed, lists comma-separated (`groupBy=metric,location`), enum values checked here so a
 * client reads which value is wrong and what is allowed. Required arguments that are missing are named too.
 */
export function reportVariables(query: URLSearchParams, field: GraphQLField<unknown, unknown>, skip: Set<string>): Record<string, unknown> {
  const checks = new Checks();
  const variables: Record<string, unknown> = {};
  for (const arg of field.args) {
    if (skip.has(arg.name)) continue;
    const raw = query.getAll(arg.name);
    if (!raw.length || raw.every((v) => v === '')) {
      if (arg.type.toString().endsWith('!') && arg.defaultValue === undefined) checks.fail(arg.name, 'is required');
      continue;
    }
    if (raw.length > 1 && !isListType(getNullableType(arg.type))) {
      checks.fail(arg.name, 'is given more than once');
      continue;
    }
    const type = getNamedType(arg.type);
    const list = isListType(getNullableType(arg.type));
    const values = list
      ? raw
          .join(',')
          .split(',')
          .map((v) => v.trim())
          .filter(Boolean)
      : [raw[0]];
    const parsed: unknown[] = [];
    for (const value of values) {
      if (isScalarType(type) && NUMERIC.has(type.name)) {
        const n = Number(value);
        if (!/^-?\d+(\.\d+)?$/.test(value) || !Number.isFinite(n) || (type.name !== 'Float' && !Number.isSafeInteger(n))) {
          checks.fail(
            arg.name,
            type.name === 'Timestamp' ? `${JSON.stringify(value)} is not a time in milliseconds since the epoch` : `${JSON.stringify(value)} is not a number`,
          );
        }
        parsed.push(n);
      } else if (isEnumType(type)) {
        const allowed = type.getValues().map((v) => v.name);
        if (!allowed.includes(value)) checks.fail(arg.name, `${JSON.stringify(value)} is not one of ${allowed.join(', ')}`);
        parsed.push(value);
      } else parsed.push(value);
    }
    variables[arg.name] = list ? parsed : parsed[0];
  }
  if (checks.details.length) throw new AppError('validation_failed', checks.details.map((d) => `${d.field}: ${d.message}`).join('; '), checks.details);
  return variables;
}
