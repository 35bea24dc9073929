/*
 * Bulk code imports and generation (docs/bulk-vouchers.md): the rules every layer shares. Pure:
 * the workflow, the service and the activities read them alike.
 */

/** A supplied code or barcode: letters, digits, `-` and `_` (as `vouchers` of an offer, docs/vouchers.md). */
export const VOUCHER_CODE = /^[A-Za-z0-9_-]{1,64}$/;

/** Rows (codes) one import may bring, from a file or generated. */
export const MAX_IMPORT_ROWS = 5_000_000;

/** Why a row of a file was not imported: the `error` column of the errors CSV. */
export const REJECTIONS = {
  malformed_row: 'not a CSV row with the header’s columns',
  line_too_long: 'the line is longer than 4,096 bytes (a code and a barcode take at most 64 characters each)',
  invalid_code: 'redemption_code must be 1 to 64 letters, digits, - or _',
  invalid_barcode: 'barcode must be 1 to 64 letters, digits, - or _',
  repeated_in_file: 'the code appears earlier in the file',
  already_supplied: 'the advertiser already has this code',
} as const;
export type Rejection = keyof typeof REJECTIONS;

/** Characters of a rejected row's value kept in the errors CSV: enough to find the row, never the whole of a hostile line. */
export const MAX_REJECTED_VALUE_CHARS = 100;

/**
 * A rejected value as it is stored and echoed: its first MAX_REJECTED_VALUE_CHARS characters
 * (then `…`), NUL (which Postgres text cannot hold) shown as U+FFFD.
 */
export function rejectedValue(value: string): string {
  const clipped = value.length > MAX_REJECTED_VALUE_CHARS ? `${value.slice(0, MAX_REJECTED_VALUE_CHARS)}…` : value;
  return clipped.replace(/\u0000/g, '\uFFFD');
}

/** Checks one row's fields; answers the code to insert or why it is rejected. */
export function checkImportRow(
  fields: string[] | null,
  columns: { code: number; barcode: number | null; count: number },
): { code: string; barcode: string | null } | { rejected: Rejection; code: string } {
  if (!fields || fields.length !== columns.count) return { rejected: 'malformed_row', code: rejectedValue(fields?.[columns.code] ?? '') };
  const code = fields[columns.code].trim();
  if (!VOUCHER_CODE.test(code)) return { rejected: 'invalid_code', code: rejectedValue(code) };
  const barcode = columns.barcode === null ? '' : fields[columns.barcode].trim();
  if (barcode !== '' && !VOUCHER_CODE.test(barcode)) return { rejected: 'invalid_barcode', code };
  return { code, barcode: barcode === '' ? null : barcode };
}

/** How generated codes look: `charset` characters at random, `length` of them or one per `#` of `mask`, between `prefix` and `postfix`. */
export interface CodePattern {
  charset?: string;
  length?: number;
  mask?: string;
  prefix?: string;
  postfix?: string;
}

/** Crockford base32, as the service's own codes (no I, L, O, U: nothing read wrongly). */
export const DEFAULT_CHARSET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
export const DEFAULT_CODE_LENGTH = 12;
/** Codes a pattern can make, at least, per code asked: keeps collisions rare, so generation ends quickly. */
const HEADROOM = 10;

const charsetOf = (p: CodePattern) => p.charset ?? DEFAULT_CHARSET;
const randomPositions = (p: CodePattern) =>
  p.mask !== undefined ? [...p.mask].filter((c) => c === '#').length : (p.length ?? DEFAULT_CODE_LENGTH);

/** What is wrong with a pattern for `count` codes, or undefined. */
export function patternProblem(p: CodePattern, count: number): string | undefined {
  const charset = charsetOf(p);
  if (p.mask !== undefined && p.length !== undefined) return 'give either length or mask, not both';
  if (!/^[A-Za-z0-9]+$/.test(charset) || new Set(charset).size !== charset.length) return 'charset must be distinct letters or digits';
  if (p.mask !== undefined && !/^[A-Za-z0-9_#-]+$/.test(p.mask)) return 'mask must be #, letters, digits, - or _';
  if (!/^[A-Za-z0-9_-]*$/.test(`${p.prefix ?? ''}${p.postfix ?? ''}`)) return 'prefix and postfix must be letters, digits, - or _';
  const positions = randomPositions(p);
  if (positions < 1) return 'the pattern needs at least one random character (length, or # in mask)';
  const total = (p.prefix ?? '').length + (p.mask ?? '').length + (p.mask === undefined ? positions : 0) + (p.postfix ?? '').length;
  if (total > 64) return `codes would be ${total} characters long; at most 64`;
  const possible = Math.pow(charset.length, positions);
  if (possible < count * HEADROOM)
    return `the pattern makes about ${possible.toExponential(2)} codes; ${count} codes need at least ${HEADROOM} times as many (a longer code or a larger charset)`;
  return undefined;
}

/** One code of the pattern; `pick(n)` answers a uniformly random integer in [0, n). */
export function makeCode(p: CodePattern, pick: (n: number) => number): string {
  const charset = charsetOf(p);
  const random = () => charset[pick(charset.length)];
  const body =
    p.mask !== undefined
      ? [...p.mask].map((c) => (c === '#' ? random() : c)).join('')
      : Array.from({ length: randomPositions(p) }, random).join('');
  return `${p.prefix ?? ''}${body}${p.postfix ?? ''}`;
}

/** The columns a file's header names, or what is wrong with it. */
export function importColumns(header: string[] | null): { code: number; barcode: number | null; count: number } | string {
  const names = (header ?? []).map((h) => h.trim().toLowerCase());
  const unknown = names.filter((n) => n !== 'redemption_code' && n !== 'barcode');
  if (!header || unknown.length)
    return `the first line must be a header of redemption_code and optionally barcode${unknown.length ? `; unknown column(s): ${unknown.slice(0, 5).join(', ')}` : ''}`;
  if (new Set(names).size !== names.length) return 'the header names a column twice';
  const code = names.indexOf('redemption_code');
  if (code === -1) return 'the header has no redemption_code column';
  const barcode = names.indexOf('barcode');
  return { code, barcode: barcode === -1 ? null : barcode, count: names.length };
}
