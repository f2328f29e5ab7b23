import {
  coerceInputValue,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  type GraphQLInputType,
} from 'graphql';
import type { ErrorDetail } from '../src/shared/errors.js';

/** `answers[0].step` from graphql-js's path (['answers', 0, 'step']). */
export function fieldPath(path: readonly (string | number)[], prefix = ''): string {
  let out = prefix;
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out ? `.${key}` : key;
  return out;
}

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
export function describeType(type: GraphQLInputType): string {
  const t = getNullableType(type);
  if (isListType(t)) return `an array of ${describeType(t.ofType).replace(/^an? /, '')}s`.replace(/ss$/, 's');
  if (isEnumType(t)) return `one of ${t.getValues().map((v) => v.name).join(', ')}`;
  if (isInputObjectType(t)) return `an object with ${Object.keys(t.getFields()).join(', ')}`;
  if (isScalarType(t)) return SCALAR_WORDS[t.name] ?? `a ${t.name}`;
  return 'a value';
}

function typeAt(type: GraphQLInputType, path: readonly (string | number)[]): GraphQLInputType | undefined {
  let current: GraphQLInputType | undefined = type;
  for (const key of path) {
    const t: GraphQLInputType | undefined = current && (getNullableType(current) as GraphQLInputType);
    if (typeof key === 'number') current = t && isListType(t) ? (t.ofType as GraphQLInputType) : undefined;
    else current = t && isInputObjectType(t) ? t.getFields()[key]?.type : undefined;
  }
  return current;
}

/** GraphQL turns a single value into a one-item list; a JSON body must send the array itself. */
function strictLists(value: unknown, type: GraphQLInputType, path: (string | number)[], details: ErrorDetail[], prefix: string) {
  if (value == null) return;
  const t = getNullableType(type) as GraphQLInputType;
  if (isListType(t)) {
    if (!Array.isArray(value)) details.push({ field: fieldPath(path, prefix), message: `must be ${describeType(t)}` });
    else value.forEach((v, i) => strictLists(v, t.ofType as GraphQLInputType, [...path, i], details, prefix));
  } else if (isInputObjectType(t) && typeof value === 'object' && !Array.isArray(value)) {
    const fields = t.getFields();
    for (const [key, v] of Object.entries(value)) if (fields[key]) strictLists(v, fields[key].type, [...path, key], details, prefix);
  }
}

/**
 * Checks a JSON value against a GraphQL input type as execution would, and says what is wrong per field in REST's
 * words (never "Variable $input got invalid value"). Returns no details when the value is acceptable.
 */
export function validateInput(value: unknown, type: GraphQLInputType, prefix = ''): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  strictLists(value, type, [], details, prefix);
  const strict = new Set(details.map((d) => d.field));
  coerceInputValue(value, type, (path, _invalid, error) => {
    const missing = /^Field "(\w+)" of required type "([^"]+)" was not provided/.exec(error.message);
    if (missing) {
      const fieldType = typeAt(type, [...path, missing[1]]);
      details.push({ field: fieldPath([...path, missing[1]], prefix), message: `is required${fieldType ? `: ${describeType(fieldType)}` : ''}` });
      return;
    }
    const unknown = /^Field "(\w+)" is not defined by type "([^"]+)"/.exec(error.message);
    if (unknown) {
      const parent = typeAt(type, path);
      const t = parent && getNullableType(parent);
      const allowed = t && isInputObjectType(t) ? Object.keys(t.getFields()).join(', ') : '';
      details.push({ field: fieldPath([...path, unknown[1]], prefix), message: `is not a known field${allowed ? `; fields: ${allowed}` : ''}` });
      return;
    }
    const at = typeAt(type, path);
    const field = fieldPath(path, prefix) || prefix || 'body';
    if (at && isNonNullType(at) && _invalid == null) {
      details.push({ field, message: `must not be null: ${describeType(at)}` });
      return;
    }
    // A scalar's own refusal (MoneyInput with no digits...) says more than the type name; graphql-js's generic
    // wording ("Expected value of type", "cannot represent") is replaced by the type in words.
    const generic = /Expected value of type|cannot represent|Expected type|does not exist in/.test(error.message);
    details.push({ field, message: generic || !at ? `must be ${at ? describeType(at) : 'a valid value'}` : error.message.replace(/\.$/, '') });
  });
  // A field refused as "not an array" is not reported a second time by the coercion.
  return details.filter((d, i) => i < strict.size || ![...strict].some((f) => d.field === f || d.field.startsWith(`${f}[`) || d.field.startsWith(`${f}.`)));
}
