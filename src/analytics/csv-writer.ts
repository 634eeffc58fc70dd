// Pure CSV encoding (RFC 4180) with spreadsheet formula injection neutralised: one function per cell and per row.

export type CsvValue = string | number | boolean | null | undefined;

/** Characters that make a spreadsheet read a cell as a formula (OWASP: = + - @, plus tab and carriage return). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * One cell: numbers as they are (a negative number stays a number), text that could start a formula prefixed with a
 * single quote, and any cell holding a comma, quote, CR or LF wrapped in quotes with inner quotes doubled.
 */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  let text = value;
  if (FORMULA_START.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, CRLF-terminated as RFC 4180 says. */
export function csvRow(values: readonly CsvValue[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
