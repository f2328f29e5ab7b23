import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { toMillis } from '../../shared/timestamps.js';

// Dates PostgreSQL can store (timestamptz), in ms: from 4713 BC is more than needed; keep to years 0 to 9999.
const MIN_MS = -62_167_219_200_000;
const MAX_MS = 253_402_300_799_999;
const MESSAGE = 'must be a timestamp in milliseconds since the Unix epoch (an integer)';

function toDate(value: unknown): Date {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= MIN_MS && value <= MAX_MS) return new Date(value);
  throw new GraphQLError(`${JSON.stringify(value)} ${MESSAGE}`);
}

/**
 * Milliseconds since the Unix epoch, in answers and in arguments. Integers only: graphql-scalars' Timestamp also
 * parses strings, and `new Date("yesterday")` is an Invalid Date that would reach SQL as a server error.
 */
export const Timestamp = new GraphQLScalarType<Date, number>({
  name: 'Timestamp',
  description: 'Milliseconds since the Unix epoch, an integer (1767225600000 is 2026-01-01T00:00:00Z).',
  serialize(value) {
    if (value instanceof Date && !Number.isNaN(value.getTime())) return toMillis(value);
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    throw new GraphQLError(`Timestamp cannot represent ${String(value)}`);
  },
  parseValue: toDate,
  parseLiteral(ast) {
    if (ast.kind !== Kind.INT) throw new GraphQLError(`A Timestamp ${MESSAGE}`, { nodes: ast });
    return toDate(Number(ast.value));
  },
});
