import {
  GraphQLError,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  isSpecifiedScalarType,
  type GraphQLInputType,
  type GraphQLLeafType,
} from 'graphql';
import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Checks } from '../src/shared/validation.js';

const SCALAR_WORDS: Record<string, string> = {
  String: 'a string',
  ID: 'a string id',
  Int: 'an integer',
  Float: 'a number',
  Boolean: 'true or false',
  JSON: 'a JSON value',
  JSONObject: 'a JSON object',
  Timestamp: 'a timestamp in milliseconds since the Unix epoch',
  MoneyInput: 'a number or a money string such as "Rs. 1,250.00"',
};

/** Words for what a field takes: "a string", "one of draft, active, archived", "an array of ...". */
function describeType(type: GraphQLInputType): string {
  const t = getNullableType(type);
  if (isListType(t)) return `an array of ${describeType(t.ofType).replace(/^an? /, '')}s`.replace(/ss$/, 's');
  if (isEnumType(t))
    return `one of ${t
      .getValues()
      .map((v) => v.name)
      .join(', ')}`;
  if (isInputObjectType(t)) return `an object with ${Object.keys(t.getFields()).join(', ')}`;
  if (isScalarType(t)) return SCALAR_WORDS[t.name] ?? `a ${t.name}`;
  return 'a value';
}

/** `answers[0].step`: the field names of REST details. */
const join = (path: string, key: string | number) => (typeof key === 'number' ? `${path}[${key}]` : path ? `${path}.${key}` : key);

// graphql-js's and graphql-scalars' scalars word their refusals by type name ("String cannot represent..."): the field
// is described instead. Our own scalars (Timestamp, MoneyInput) word theirs for clients, and are quoted.
const LIBRARY_SCALARS = new Set<unknown>([GraphQLJSON, GraphQLJSONObject]);

function leafRefusal(type: GraphQLLeafType, value: unknown): string | undefined {
  try {
    if (type.parseValue(value) !== undefined) return undefined;
  } catch (err) {
    if (err instanceof GraphQLError && isScalarType(type) && !isSpecifiedScalarType(type) && !LIBRARY_SCALARS.has(type)) {
      return err.message.replace(/\.$/, '');
    }
  }
  return `must be ${describeType(type)}`;
}

function check(checks: Checks, value: unknown, type: GraphQLInputType, path: string): void {
  const field = path || 'body';
  if (isNonNullType(type)) {
    if (value === null) return checks.fail(field, `must not be null: ${describeType(type)}`);
    return check(checks, value, type.ofType, path);
  }
  if (value === null || value === undefined) return;
  if (isListType(type)) {
    // GraphQL turns a single value into a one-item list; a JSON body must send the array itself.
    if (!Array.isArray(value)) return checks.fail(field, `must be ${describeType(type)}`);
    value.forEach((item, i) => check(checks, item, type.ofType, join(path, i)));
    return;
  }
  if (isInputObjectType(type)) {
    if (typeof value !== 'object' || Array.isArray(value)) return checks.fail(field, `must be ${describeType(type)}`);
    const fields = type.getFields();
    const given = value as Record<string, unknown>;
    for (const f of Object.values(fields)) {
      const v = Object.hasOwn(given, f.name) ? given[f.name] : undefined;
      if (v !== undefined) check(checks, v, f.type, join(path, f.name));
      else if (isNonNullType(f.type) && f.defaultValue === undefined) checks.fail(join(path, f.name), `is required: ${describeType(f.type)}`);
    }
    for (const key of Object.keys(given)) {
      if (!Object.hasOwn(fields, key)) checks.fail(join(path, key), `is not a known field; fields: ${Object.keys(fields).join(', ')}`);
    }
    return;
  }
  const refusal = leafRefusal(type, value);
  if (refusal) checks.fail(field, refusal);
}

/**
 * Checks a JSON value against a GraphQL input type by walking the type, as execution would coerce it (required and
 * unknown fields, lists, enums, scalars by their own parseValue), and says what is wrong per field in REST's words
 * (never "Variable $input got invalid value"). Adds nothing when the value is acceptable.
 */
export function checkInput(checks: Checks, value: unknown, type: GraphQLInputType): void {
  check(checks, value, type, '');
}
