import { createHash } from 'node:crypto';
import { z } from 'zod';
import { once, queryInt } from './common';

/*
 * GET /events, the change feed (docs/change-feed.md): the offer events the callbacks carry, with
 * the same ids, paged by an opaque cursor over the order the events committed in.
 */

/** Events a page holds by default and at most. */
export const FEED_DEFAULT_LIMIT = 100;
export const FEED_MAX_LIMIT = 1000;

/**
 * What a cursor holds: the feed position the reader has seen up to, and whose it is (the client it
 * was handed out to, as a tag). No time: a cursor's age is read from the feed itself, the `fed_at`
 * of its position (issue 34: a time the client sends back could be set to anything). Opaque to
 * clients: base64url of `2.<position>.<client tag>`; only this module reads or writes it.
 */
export interface FeedCursor {
  position: number;
  /** `cursorOwner` of the client it was handed out to. */
  owner: string;
}

const CURSOR_FORM = /^2\.(\d{1,15})\.([A-Za-z0-9_-]{12})$/;

/** The tag a cursor carries for the client it was handed out to: not its id, which the cursor need not show. */
export function cursorOwner(clientId: string): string {
  return createHash('sha256').update(`feed-cursor:${clientId}`).digest('base64url').slice(0, 12);
}

/** A cursor as handed out in `next_cursor`. */
export function encodeCursor(c: FeedCursor): string {
  return Buffer.from(`2.${c.position}.${c.owner}`).toString('base64url');
}

/** The cursor `encodeCursor` made, or null for anything else (also the time-carrying cursors of before issue 34). */
export function decodeCursor(text: string): FeedCursor | null {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(text)) return null;
  const m = CURSOR_FORM.exec(Buffer.from(text, 'base64url').toString('latin1'));
  return m ? { position: Number(m[1]), owner: m[2] } : null;
}

/** The query of GET /events: where to start (one of `since` and `after`, or neither), and the page size. */
export const EventFeedQuery = z
  .object({
    since: once(z.string().datetime({ offset: true, message: 'must be an ISO 8601 time such as 2026-11-24T10:00:00Z' }))
      .describe('Start with the events created at or after this time (ISO 8601); at most 30 days back')
      .optional(),
    after: once(z.string().refine((c) => decodeCursor(c) !== null, 'is not a cursor of this feed: send a next_cursor as it was given'))
      .describe('Continue after this cursor: the next_cursor of the page before')
      .optional(),
    limit: queryInt(1, FEED_MAX_LIMIT, FEED_DEFAULT_LIMIT).describe(`Events per page, 1–${FEED_MAX_LIMIT} (default ${FEED_DEFAULT_LIMIT})`),
  })
  .superRefine((q, ctx) => {
    if (q.since !== undefined && q.after !== undefined)
      ctx.addIssue({ code: 'custom', path: ['after'], message: 'give since or after, not both: after continues a feed, since starts one' });
  });
export type EventFeedQuery = z.infer<typeof EventFeedQuery>;

/** One event as the feed shows it: the callback's body (docs/callbacks.md) with the offer's id beside it. */
export const FeedEvent = z.object({
  id: z
    .string()
    .describe("The event id: the same as the webhook-id of this event's callback, so either can be deduplicated against the other"),
  type: z.string().describe("The event's type in this interface's vocabulary (docs/callbacks.md)"),
  offer_id: z
    .string()
    .nullable()
    .describe('The offer the event is about; null for an event about no offer (`statement.ready`, `endpoint.disabled`)'),
  sequence: z
    .number()
    .int()
    .describe("The event's place among its offer's events (1, 2, …); the feed gives one offer's events in this order"),
  created_at: z.string(),
  data: z
    .record(z.string(), z.unknown())
    .describe(
      'As in the callback: `offer`, the offer as this interface shows it now, and what changed; for `statement.ready`, the statement (docs/statements.md); for `endpoint.disabled`, the `endpoint` (id, url, description, disabled_reason, disabled_at)',
    ),
});
export type FeedEvent = z.infer<typeof FeedEvent>;

/** A page of the feed: oldest first; `next_cursor` continues after its last event. */
export const EventFeedPage = z.object({
  status: z.literal('OK'),
  events: z.array(FeedEvent),
  next_cursor: z.string().describe('Send as `after` for the events after this page (also when it is empty); good for 30 days'),
  has_more: z.boolean().describe('True when more events may follow now: ask again at once; false: you are up to date'),
});
export type EventFeedPage = z.infer<typeof EventFeedPage>;
