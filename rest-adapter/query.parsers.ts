import { AppError } from '../src/shared/errors.js';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../src/kit/list/list.limits.js';

/**
 * Query conventions of interface 4.1 (docs/rest.md, "Query parameters"), as small pure functions. Each refusal is a 400
 * whose message names the parameter and shows an example of a correct value; `details[0].field` is the parameter.
 */

export const MAX_EXPAND_DEPTH = 4;

type FilterType = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'contains';
type FilterValue = string | number | boolean;

export interface Sort {
  field: string;
  order: 'asc' | 'desc';
}
export interface Filter {
  field: string;
  type: FilterType;
  value: FilterValue | FilterValue[];
}

/** What a resource accepts, derived from the schema (listConventions in schema.model.ts). */
export interface ListConventions {
  sortFields: string[];
  /** Filterable field -> the filter types it takes. */
  filterFields: Record<string, string[]>;
}

/** Expandable fields per type: type name -> field -> type name of the field. */
export interface ExpandGraph {
  root: string;
  types: Record<string, Record<string, string>>;
}

export interface ParsedQuery {
  page: number;
  pageSize: number;
  sorts: Sort[];
  filters: Filter[];
  /** Canonical expand paths: sorted, unique, prefixes implied. */
  expand: string[];
}

export const LIST_PARAMETERS = ['page', 'pageSize', 'sorts', 'filters', 'expand'] as const;

function refuse(parameter: string, problem: string, example: string): never {
  const message = `${parameter}: ${problem}. Example of a correct value: ${example}`;
  throw new AppError('bad_request', message, [{ field: parameter, message: `${problem}. Example: ${example}` }]);
}

const show = (value: unknown) => JSON.stringify(value);

/** Every parameter must be one the route knows. */
function checkKnownParameters(params: URLSearchParams, allowed: readonly string[]): void {
  for (const name of new Set(params.keys())) {
    if (!allowed.includes(name)) {
      const example = allowed.length ? `${allowed[0]}=...` : '(no query parameters)';
      refuse(name, `unknown query parameter ${show(name)}; ${allowed.length ? `this route takes ${allowed.join(', ')}` : 'this route takes none'}`, example);
    }
  }
}

function single(params: URLSearchParams, name: string, example: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) refuse(name, `given ${values.length} times; give it once`, example);
  return values[0];
}

export function parsePage(raw: string | undefined): number {
  if (raw === undefined) return 0;
  if (!/^\d{1,9}$/.test(raw)) refuse('page', `must be an integer from 0 (the first page), got ${show(raw)}`, 'page=0');
  return Number(raw);
}

export function parsePageSize(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PAGE_SIZE;
  if (!/^\d{1,9}$/.test(raw)) refuse('pageSize', `must be an integer from 1 to ${MAX_PAGE_SIZE}, got ${show(raw)}`, `pageSize=${DEFAULT_PAGE_SIZE}`);
  const size = Number(raw);
  if (size < 1 || size > MAX_PAGE_SIZE) refuse('pageSize', `must be from 1 to ${MAX_PAGE_SIZE}, got ${size}`, `pageSize=${DEFAULT_PAGE_SIZE}`);
  return size;
}

function parseJsonObject(parameter: string, raw: string, example: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    refuse(parameter, `${show(raw)} is not valid JSON`, example);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) refuse(parameter, `must be a JSON object, got ${show(raw)}`, example);
  return value as Record<string, unknown>;
}

function onlyKeys(parameter: string, object: Record<string, unknown>, keys: string[], example: string) {
  for (const key of Object.keys(object)) {
    if (!keys.includes(key)) refuse(parameter, `unknown key ${show(key)}; the keys are ${keys.join(', ')}`, example);
  }
}

function sortExample(conv: ListConventions) {
  return `sorts=${show({ field: conv.sortFields.includes('createdAt') ? 'createdAt' : conv.sortFields[0], order: 'desc' })}`;
}

export function parseSorts(raws: string[], conv: ListConventions): Sort[] {
  const example = sortExample(conv);
  const seen = new Set<string>();
  return raws.map((raw) => {
    const sort = parseJsonObject('sorts', raw, example);
    onlyKeys('sorts', sort, ['field', 'order'], example);
    const { field, order = 'asc' } = sort;
    if (typeof field !== 'string' || !conv.sortFields.includes(field)) {
      refuse('sorts', `unknown sort field ${show(field)}; sortable fields: ${conv.sortFields.join(', ')}`, example);
    }
    if (order !== 'asc' && order !== 'desc') refuse('sorts', `unknown order ${show(order)}; orders: asc, desc`, example);
    if (seen.has(field)) refuse('sorts', `field ${show(field)} is sorted twice`, example);
    seen.add(field);
    return { field, order };
  });
}

function filterExample(conv: ListConventions) {
  const field = 'createdAt' in conv.filterFields ? 'createdAt' : Object.keys(conv.filterFields)[0];
  return field === 'createdAt' ? `filters=${show({ field, type: 'gte', value: 1767225600000 })}` : `filters=${show({ field, type: 'eq', value: 'value' })}`;
}

const isScalar = (v: unknown): v is FilterValue => typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v));

export function parseFilters(raws: string[], conv: ListConventions): Filter[] {
  const example = filterExample(conv);
  const seen = new Set<string>();
  return raws.map((raw) => {
    const filter = parseJsonObject('filters', raw, example);
    onlyKeys('filters', filter, ['field', 'type', 'value'], example);
    const { field, type, value } = filter;
    const fields = Object.keys(conv.filterFields);
    if (typeof field !== 'string' || !fields.includes(field)) {
      refuse('filters', `unknown filter field ${show(field)}; filterable fields: ${fields.join(', ')}`, example);
    }
    const types = conv.filterFields[field];
    if (typeof type !== 'string' || !types.includes(type)) {
      refuse('filters', `unknown filter type ${show(type)} for ${show(field)}; types: ${types.join(', ')}`, example);
    }
    if (type === 'in') {
      if (!Array.isArray(value) || !value.every(isScalar)) {
        refuse('filters', `type "in" takes an array of values, got ${show(value)}`, `filters=${show({ field, type: 'in', value: ['a', 'b'] })}`);
      }
    } else if (!isScalar(value)) {
      refuse('filters', `value of ${show(field)} must be a string, a number (timestamps in ms) or a boolean, got ${show(value ?? null)}`, example);
    }
    const key = `${field}:${type}`;
    if (seen.has(key)) refuse('filters', `${show(field)} ${type} is given twice`, example);
    seen.add(key);
    return { field, type: type as FilterType, value: value as FilterValue | FilterValue[] };
  });
}

/** Comma-separated dotted paths, checked against the graph; returns canonical paths (sorted, unique, with prefixes). */
export function parseExpand(raws: string[], graph: ExpandGraph): string[] {
  const rootFields = Object.keys(graph.types[graph.root] ?? {});
  const example = `expand=${rootFields[0] ?? 'field'}`;
  const paths = new Set<string>();
  for (const raw of raws) {
    for (const part of raw.split(',')) {
      const path = part.trim();
      if (!path) continue;
      const segments = path.split('.');
      if (segments.length > MAX_EXPAND_DEPTH) {
        refuse('expand', `${show(path)} is ${segments.length} levels deep; the maximum is ${MAX_EXPAND_DEPTH}`, example);
      }
      let type = graph.root;
      for (let i = 0; i < segments.length; i++) {
        const fields = graph.types[type] ?? {};
        const next = fields[segments[i]];
        if (!next) {
          const at = segments.slice(0, i).join('.');
          const allowed = Object.keys(fields);
          refuse(
            'expand',
            `unknown path ${show(path)}: ${show(segments[i])} is not expandable${at ? ` on ${show(at)}` : ''}; ${allowed.length ? `expandable there: ${allowed.join(', ')}` : 'nothing is expandable there'}`,
            example,
          );
        }
        paths.add(segments.slice(0, i + 1).join('.'));
        type = next;
      }
    }
  }
  return [...paths].sort();
}

/** Parses the query string of one request: unknown parameters, then each convention the route takes. */
export function parseQuery(params: URLSearchParams, allowed: readonly string[], conv?: ListConventions, graph?: ExpandGraph): ParsedQuery {
  checkKnownParameters(params, allowed);
  const parsed: ParsedQuery = { page: 0, pageSize: DEFAULT_PAGE_SIZE, sorts: [], filters: [], expand: [] };
  if (allowed.includes('page')) parsed.page = parsePage(single(params, 'page', 'page=0'));
  if (allowed.includes('pageSize')) parsed.pageSize = parsePageSize(single(params, 'pageSize', `pageSize=${DEFAULT_PAGE_SIZE}`));
  if (conv && allowed.includes('sorts')) parsed.sorts = parseSorts(params.getAll('sorts'), conv);
  if (conv && allowed.includes('filters')) parsed.filters = parseFilters(params.getAll('filters'), conv);
  if (graph && allowed.includes('expand')) parsed.expand = parseExpand(params.getAll('expand'), graph);
  return parsed;
}
