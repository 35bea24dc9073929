import type { SearchCursor } from '../domain/offer-search';
import { cursorFields, cursorOfFields } from '../domain/search-cursor';

/*
 * The offer search's keyset cursor as text (docs/distribution-search.md "Paging by cursor"): where
 * a page ended, as the sort key and id of its last offer, so the next page starts right after it
 * instead of counting its way there. Handed out as `next_cursor`, sent back as `after`. Opaque to
 * clients: base64url of its JSON fields (domain/search-cursor.ts), not signed (it holds nothing the
 * page did not show; an edited one that still decodes is only another position in the same order).
 * Only this module reads or writes the text.
 */

/**
 * Longest cursor accepted: room for a text key (a title; 200 characters by the offer schema) of
 * up to 1000 characters, each escaped in JSON, in base64url.
 */
export const MAX_CURSOR_LENGTH = 8192;

/** The cursor as handed out in `next_cursor`. */
export function encodeSearchCursor(c: SearchCursor): string {
  return Buffer.from(JSON.stringify(cursorFields(c))).toString('base64url');
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
  return cursorOfFields(parsed);
}
