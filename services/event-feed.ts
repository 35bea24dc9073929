import { feedWindowStart, soldItemKey, soldItemOf } from '../domain/event-feed';
import { Failure } from '../domain/failures';
import { revenueShares } from '../domain/money';
import { callbackPayload, eventTypeFor, offerClosedToViewerNow, soldView, type EventViewer } from '../schemas/callback-event';
import { cursorOwner, decodeCursor, encodeCursor, type EventFeedPage, type EventFeedQuery, type FeedEvent } from '../schemas/event-feed';
import { cursorReach, feedHead, numberCommittedEvents, readFeedEvents, type FeedScope } from '../store/event-feed';
import { findOffersByIds } from '../store/offers';
import { offersAsSold } from '../store/orders';
import type { ServiceDeps } from './deps';

/*
 * GET /events (docs/change-feed.md): the outbox in commit order, filtered by the same rule the
 * callbacks use (schemas/callback-event.ts `eventTypeFor`), shaped as the callbacks' bodies.
 */

/** At most this many reads of `max(limit, 100)` events per page, so a client that sees few events still gets an answer soon (has_more). */
const SCAN_BATCHES = 10;

const notOurs = () =>
  new Failure('invalid_field', 'after: is not a cursor of this feed: send a next_cursor as it was given', { field: 'after' });

const notYours = () =>
  new Failure(
    'invalid_field',
    "after: this cursor was handed out to another API client; page with the next_cursor of your own client's pages",
    { field: 'after' },
  );

const gone = (field: 'after' | 'since', what: string, days: number) =>
  new Failure(
    'gone',
    `${what}; the feed keeps ${days} days. Start again with neither since nor after (the oldest events kept) ` +
      'or with a more recent since, and bring your copy up to date from GET /offers',
    { field },
  );

/** One page of the change feed for this client: events after the cursor (or from `since`, or from the oldest kept), oldest first. */
export async function readEventFeed(
  deps: Pick<ServiceDeps, 'db' | 'config'>,
  viewer: EventViewer,
  q: EventFeedQuery,
): Promise<EventFeedPage> {
  const startedAt = new Date();
  const days = deps.config.FEED_RETENTION_DAYS;
  const windowStart = feedWindowStart(startedAt, days);
  const owner = cursorOwner(viewer.client_id);
  const cursor = q.after === undefined ? undefined : decodeCursor(q.after);
  if (cursor === null) throw notOurs();
  if (cursor && cursor.owner !== owner) throw notYours();
  const since = cursor ? undefined : q.since ? new Date(q.since) : windowStart;
  if (since && since < windowStart) throw gone('since', `since is more than ${days} days ago`, days);
  // A page from a time to come would hand out a cursor that then continues with events before it.
  if (since && since > startedAt) throw new Failure('invalid_field', 'since: is in the future', { field: 'since' });

  // Events committed by now get their positions first; any committing later get higher ones.
  await numberCommittedEvents(deps.db);
  // Read before the events: what this page skips as before `since` lies at or below it.
  const head = await feedHead(deps.db);
  if (cursor && cursor.position > head) throw notOurs();
  if (cursor && (await cursorTooOld(deps, cursor.position, windowStart)))
    throw gone('after', `this cursor is more than ${days} days old`, days);

  const scope: FeedScope = { clientId: viewer.client_id, publishedOffers: viewer.interface === 'distribution' };
  const shares = revenueShares(deps.config);
  const batch = Math.max(q.limit, 100);
  const events: FeedEvent[] = [];
  // Each offer's view is made once per page, however many of its events the page holds.
  const views = new Map<string, unknown>();
  let last: number | undefined;
  let more = false;
  for (let i = 0; i < SCAN_BATCHES && events.length < q.limit; i++) {
    const rows = await readFeedEvents(deps.db, { after: last ?? cursor?.position ?? 0, since, scope, limit: batch + 1 });
    const offerIds = [...new Set(rows.flatMap((r) => (r.offer_id ? [r.offer_id] : [])))];
    const offers = new Map((await findOffersByIds(deps.db, offerIds)).map((o) => [o.id, o]));
    const sold = await offersAsSold(
      deps.db,
      rows.flatMap((r) => soldItemOf(r) ?? []),
    );
    more = rows.length > batch;
    for (const row of rows.slice(0, batch)) {
      if (events.length === q.limit) {
        more = true;
        break;
      }
      last = Number(row.feed_position);
      // An event for one client alone (statement.ready) has no offer; it is this client's or nobody's here.
      const offer = row.offer_id ? offers.get(row.offer_id) : null;
      if (offer === undefined) continue;
      const type = eventTypeFor(row, offer, viewer);
      if (!type) continue;
      const item = soldItemOf(row);
      const asSold = soldView(row, offer, viewer, item && sold.get(soldItemKey(item)));
      const body = callbackPayload(row, type, offer, viewer.interface, shares, views, asSold);
      // An event of the time the offer was open to this client, about an offer no longer open to it: named by id only.
      if (offerClosedToViewerNow(row, offer, viewer)) body.data = { ...body.data, offer: { id: offer!.id } };
      events.push({ id: body.id, type, offer_id: row.offer_id, sequence: body.sequence, created_at: body.created_at, data: body.data });
    }
    if (!more) break;
  }
  // After the last event read, or, nothing read, after the same position (or, from `since` or the
  // oldest kept, after all placed so far).
  const position = last ?? cursor?.position ?? head;
  return { status: 'OK', events, next_cursor: encodeCursor({ position, owner }), has_more: more };
}

/**
 * Whether events after `position` may be gone (docs/change-feed.md, retention), judged by the feed
 * itself, never by a time the client sends: the pruner deleted past it (it is below the floor), or
 * the first event after it got its place (`fed_at`) more than the window ago. Every later event got
 * its place no earlier, so when that one is within the window, all are; a cursor with nothing after
 * it misses nothing, however quiet the feed has been (the pruner's floor stops at the last event it
 * deleted, which such a cursor has seen).
 */
async function cursorTooOld(deps: Pick<ServiceDeps, 'db'>, position: number, windowStart: Date): Promise<boolean> {
  const { floor, nextFedAt } = await cursorReach(deps.db, position);
  return position < floor || (nextFedAt !== undefined && nextFedAt < windowStart);
}
