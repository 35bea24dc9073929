import { stringify } from 'csv-stringify/sync';

/*
 * The one CSV writer (docs/decisions/0072-csv-writer-and-secrets.md): every CSV the service writes
 * (statements, an import's errors, voucher exports) goes through it, so none holds a live formula
 * (OWASP "CSV injection"). A text cell starting with one of FORMULA_STARTS is prefixed with `'`, a
 * spreadsheet's "this is text" mark, before it is quoted. Numbers (number, bigint) are written as
 * they are: a negative amount stays a number a spreadsheet sums, and cannot hold a formula. So a
 * column that may be negative is handed in as a number, never as its text.
 *
 * csv-stringify's `escape_formulas` applies the rule to what is written in Node. The voucher export
 * is formatted by Postgres a page at a time (a million rows are a hundred strings in the worker, not
 * a million row objects): its cells are built by `csvTextSql`/`csvNumberSql` below from the same
 * list, and test/stack/api/voucher-exports.test.ts proves both give the same bytes.
 */

/** A cell: text, a number, or nothing (an empty cell). */
export type CsvCell = string | number | bigint | null | undefined;

/** The first characters that make a spreadsheet read a text cell as a formula (csv-stringify's list: ASCII and full-width). */
export const FORMULA_STARTS = ['=', '+', '-', '@', '\t', '\r', '\uFF1D', '\uFF0B', '\uFF0D', '\uFF20'] as const;

export interface CsvOptions {
  /** Line ends: `\n` (default) or `\r\n` (RFC 4180, the statements). */
  crlf?: boolean;
  /** Quote every text cell, not only those that need it (the voucher export's form). */
  quoteText?: boolean;
}

/** Rows as CSV text, each ended by its line end; text cells neutralised as above. */
export function csvText(rows: readonly (readonly CsvCell[])[], o: CsvOptions = {}): string {
  if (rows.length === 0) return '';
  return stringify(rows as CsvCell[][], {
    record_delimiter: o.crlf ? 'windows' : 'unix',
    escape_formulas: true,
    quoted_string: o.quoteText ?? false,
    // csv-stringify quotes a cell holding the record delimiter only: a lone CR must be quoted too, or readers end the row there.
    quoted_match: /[\r\n]/,
  });
}

const sqlString = (s: string) => `'${s.replace(/'/g, "''")}'`;
const FORMULA_STARTS_SQL = `array[${FORMULA_STARTS.map((c) => (c === '\t' ? `E'\\t'` : c === '\r' ? `E'\\r'` : sqlString(c))).join(', ')}]`;

/**
 * The SQL of one text cell as `csvText(…, { quoteText: true })` writes it: neutralised, quoted,
 * quotes doubled; empty for null. `expr` is SQL the caller wrote (never a client's value).
 */
export function csvTextSql(expr: string): string {
  const v = `(${expr})::text`;
  const safe = `case when left(${v}, 1) = any (${FORMULA_STARTS_SQL}) then '''' || ${v} else ${v} end`;
  return `coalesce('"' || replace(${safe}, '"', '""') || '"', '')`;
}

/** The SQL of one number cell: as is; empty for null. */
export const csvNumberSql = (expr: string): string => `coalesce((${expr})::text, '')`;
