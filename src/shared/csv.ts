/**
 * CSV for spreadsheets, written one way for the REST reports and the portal's exports alike. Plain functions on
 * strings, no import: the portal's browser bundle includes this file (scripts/build-portal.js, PORTAL_SHARED_SOURCES).
 */

/** A negative number: the one cell starting with `-` that a spreadsheet must still read as a number. */
const NEGATIVE_NUMBER = /^-\d+(\.\d+)?(e[+-]?\d+)?$/i;

/**
 * One field. A leading `=`, `+`, `-`, `@`, tab or carriage return makes a spreadsheet read the cell as a formula
 * (OWASP, "CSV Injection"): such a cell gets a leading `'`, shown as text, except a negative number. Then RFC 4180:
 * a field with a comma, quote or line break is quoted, its quotes doubled.
 */
export function csvCell(value: string): string {
  const safe = /^[=+@\t\r]/.test(value) || (value.startsWith('-') && !NEGATIVE_NUMBER.test(value)) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** Lines of fields as a CSV text: CRLF after each line, the last included (RFC 4180). */
export function csvText(lines: readonly (readonly string[])[]): string {
  return lines.map((line) => `${line.map(csvCell).join(',')}\r\n`).join('');
}
