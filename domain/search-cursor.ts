import { NULLABLE_SORT_FIELDS, SORT_KEY_KINDS, type SearchCursor, type SortBy, type SortField, type SortKeyKind } from './offer-search';

/*
 * What a search cursor says (docs/distribution-search.md "Paging by cursor"): its fields as the
 * cursor's JSON holds them, `{"v":1,"s":"<field> <direction>","k":<key>,"i":"<offer id>"}`, and
 * which of them name a position (a key Postgres reads back as the same value of its sort's kind).
 * The text around them (base64url) is schemas/search-cursor.ts.
 */

const CURSOR_VERSION = 1;
/** Longest text key: a title (200 characters by the offer schema) with room to spare. */
const MAX_TEXT_KEY = 1000;
const ID_FORM = /^[A-Za-z0-9_-]{1,64}$/;
const YEAR_MIN = 1000;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A sort as a cursor and a refusal name it: `price asc`. */
export const sortName = (sort: SortBy) => `${sort.field} ${sort.direction}`;

/** The cursor's fields as its JSON holds them. */
export function cursorFields(c: SearchCursor): { v: number; s: string; k: string | number | null; i: string } {
  return { v: CURSOR_VERSION, s: sortName(c.sort), k: c.key, i: c.id };
}

/** The cursor these decoded JSON fields name (its key valid for its sort), or null for anything else. */
export function cursorOfFields(parsed: unknown): SearchCursor | null {
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const { v, s, k, i, ...rest } = parsed as Record<string, unknown>;
  if (v !== CURSOR_VERSION || Object.keys(rest).length || typeof s !== 'string' || typeof i !== 'string' || !ID_FORM.test(i)) return null;
  const [field, direction, ...more] = s.split(' ');
  if (!(field in SORT_KEY_KINDS) || (direction !== 'asc' && direction !== 'desc') || more.length) return null;
  const sort: SortBy = { field: field as SortField, direction };
  if (k === null) return NULLABLE_SORT_FIELDS.has(sort.field) ? { sort, key: null, id: i } : null;
  return validKey(SORT_KEY_KINDS[sort.field], k) ? { sort, key: k as string | number, id: i } : null;
}

/** Whether `k` is a key of this kind that Postgres reads back as the same value (never an error). */
function validKey(kind: SortKeyKind, k: unknown): boolean {
  switch (kind) {
    case 'float8':
      // A chord through the Earth, in its radius' units: at most its diameter.
      return typeof k === 'number' && Number.isFinite(k) && k >= 0 && k <= 1e8;
    case 'int8':
      return typeof k === 'string' && /^-?\d{1,19}$/.test(k) && BigInt(k) <= 2n ** 63n - 1n && BigInt(k) >= -(2n ** 63n);
    case 'numeric':
      return typeof k === 'string' && /^-?\d{1,30}(\.\d{1,30})?$/.test(k);
    case 'text':
      return typeof k === 'string' && k.length <= MAX_TEXT_KEY && !k.includes('\u0000') && !LONE_SURROGATE.test(k);
    case 'date':
      return typeof k === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(k) && sameInstant(`${k}T00:00:00.000Z`);
    case 'timestamptz':
      return typeof k === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(k) && sameInstant(`${k.slice(0, 23)}Z`);
  }
}

/** An ISO instant (milliseconds) that names a real moment of years YEAR_MIN–9999: no 31 February, no hour 24. */
function sameInstant(iso: string): boolean {
  const t = new Date(iso);
  return !Number.isNaN(t.getTime()) && t.getUTCFullYear() >= YEAR_MIN && t.toISOString() === iso;
}
