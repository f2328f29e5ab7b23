import { csvText } from '../src/shared/csv.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Nested objects become dotted columns (`distribution.4`, `previous.mean`); lists become JSON text. */
function flattenRow(row: { [key: string]: Json }, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  for (const [key, value] of Object.entries(row)) {
    const name = prefix + key;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) flattenRow(value, `${name}.`, out);
    else out[name] = value === null ? '' : Array.isArray(value) ? JSON.stringify(value) : String(value);
  }
  return out;
}

/** The rows of a report as CSV for spreadsheets: one header line, columns in order of first appearance. */
export function toCsv(rows: Array<{ [key: string]: Json }>): string {
  const flat = rows.map((r) => flattenRow(r));
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of flat) for (const key of Object.keys(row)) if (!seen.has(key)) seen.add(key), columns.push(key);
  return csvText([columns, ...flat.map((row) => columns.map((c) => row[c] ?? ''))]);
}

/** `format=csv`, or an Accept header that prefers text/csv to JSON. */
export function wantsCsv(format: string | null, accept: string | undefined): boolean {
  if (format != null) return format === 'csv';
  return !!accept && /\btext\/csv\b/.test(accept) && !/application\/json/.test(accept.split('text/csv')[0]);
}
