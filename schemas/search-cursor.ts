import {
  NULLABLE_SORT_FIELDS,
  SORT_KEY_KINDS,
  type SearchCursor,
  type SortBy,
  type SortField,
  type SortKeyKind,
} from '../domain/offer-search';

/*
 * The offer search's keyset cursor (docs/distribution-search.md "Paging by cursor"): where a page
 * ended, as the sort key and id of its last offer, so the next page starts right after it instead
 * of counting its way there. Handed out as `next_cursor`, sent back as `after`. Opaque to clients:
 * base64url of `{"v":1,"s":"<field> <direction>","k":<key>,"i":"<offer id>"}`, not signed (it
 * holds nothing the page did not show; an edited one that still decodes is only another position
 * in the same order). Only this module reads or writes it.
 */

const CURSOR_VERSION = 1;
/**
 * Longest cursor accepted: room for a text key (a title; 200 characters by the offer schema) of
 * up to 1000 characters, each escaped in JSON, in base64url.
 */
export const MAX_CURSOR_LENGTH = 8192;
const MAX_TEXT_KEY = 1000;
const ID_FORM = /^[A-Za-z0-9_-]{1,64}$/;

export const sortName = (sort: SortBy) => `${sort.field} ${sort.direction}`;

/** The cursor as handed out in `next_cursor`. */
export function encodeSearchCursor(c: SearchCursor): string {
  return Buffer.from(JSON.stringify({ v: CURSOR_VERSION, s: sortName(c.sort), k: c.key, i: c.id })).toString('base64url');
}

/** The cursor `encodeSearchCursor` made (its key valid for its sort), or null for anything else. */
export function decodeSearchCursor(text: string): SearchCursor | null {
  if (text.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  const bytes = Buffer.from(text, 'base64url');
  // Only the text encodeSearchCursor writes: no stray characters the decoder would skip.
  if (bytes.toString('base64url') !== text) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    return null;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return null;
  const { v, s, k, i, ...rest } = parsed as Record<string, unknown>;
  if (v !== CURSOR_VERSION || Object.keys(rest).length || typeof s !== 'string' || typeof i !== 'string' || !ID_FORM.test(i)) return null;
  const [field, direction, ...more] = s.split(' ');
  if (!(field in SORT_KEY_KINDS) || (direction !== 'asc' && direction !== 'desc') || more.length) return null;
  const sort: SortBy = { field: field as SortField, direction };
  if (k === null) return NULLABLE_SORT_FIELDS.has(sort.field) ? { sort, key: null, id: i } : null;
  return validKey(SORT_KEY_KINDS[sort.field], k) ? { sort, key: k as string | number, id: i } : null;
}

const YEAR_MIN = 1000;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

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
