import { sql } from 'kysely';
import type { OfferEventRow } from './database';
import { listen, type Db, type Listener, type Trx } from './db';
import { derivedId } from './ids';

/*
 * The offers' outbox: every change to an offer appends one event here, in the same transaction,
 * with the offer's next sequence number. Callbacks deliver these (store/callback-fanout.ts reads them).
 */

export type OfferEventType =
  | 'offer.created'
  | 'offer.status_changed'
  | 'offer.published'
  | 'offer.updated'
  | 'offer.review_overdue'
  | 'offer.stock_changed'
  | 'offer.sold_out'
  | 'offer.closed'
  /** A voucher of the offer was redeemed (a gift card: partly or wholly); docs/callbacks.md. */
  | 'voucher.redeemed'
  | 'voucher.redemption_rolled_back'
  /** A partly spent gift card's order was cancelled: its unspent balance is void (store/orders.ts). */
  | 'voucher.balance_voided';

/**
 * Events addressed to one client, about no offer: a monthly statement was stored (docs/statements.md
 * "Monthly statements"); a callback endpoint of its was disabled after failing too long (docs/callbacks.md).
 */
export type ClientEventType = 'statement.ready' | 'endpoint.disabled' | 'offer_import.completed';

/** Columns of the offer row that change together with its event (stock moves). */
export type OfferRowChange = { quantity_in_stock: number; reserved_quantity: number; availabilityChanged: boolean };

/**
 * Appends an event with the offer's next sequence number; returns its id. The offer row must be
 * locked or new. `offerChange` adds values to the offer's stock columns in the same statement, so
 * a stock move with its event is one round trip to the database.
 */
export async function appendOfferEvent(
  trx: Trx,
  e: { key: string; offerId: string; type: OfferEventType; data: Record<string, unknown>; offerChange?: OfferRowChange },
): Promise<string> {
  const id = derivedId('evt', e.key);
  const change = e.offerChange;
  await trx
    .with('offer', (db) =>
      db
        .updateTable('offers')
        .set((eb) => ({
          event_sequence: eb('event_sequence', '+', 1),
          ...(change && {
            quantity_in_stock: eb('quantity_in_stock', '+', change.quantity_in_stock),
            reserved_quantity: eb('reserved_quantity', '+', change.reserved_quantity),
            ...(change.availabilityChanged && { availability_changed_at: new Date() }),
          }),
        }))
        .where('id', '=', e.offerId)
        .returning('event_sequence'),
    )
    .insertInto('offer_events')
    .columns(['id', 'offer_id', 'sequence', 'type', 'data'])
    .expression((eb) =>
      eb
        .selectFrom('offer')
        .select([
          sql<string>`${id}::text`.as('id'),
          sql<string>`${e.offerId}::text`.as('offer_id'),
          'offer.event_sequence',
          sql<string>`${e.type}::text`.as('type'),
          sql<string>`${JSON.stringify(e.data)}::jsonb`.as('data'),
        ]),
    )
    .executeTakeFirstOrThrow();
  return id;
}

/**
 * Appends an event for one client alone (no offer): the feed and the callbacks carry it to that
 * client only. Its id is derived from `key`, so appending it again changes nothing.
 */
export async function appendClientEvent(
  trx: Trx,
  e: { key: string; clientId: string; type: ClientEventType; data: Record<string, unknown> },
): Promise<string> {
  const id = derivedId('evt', e.key);
  await trx
    .insertInto('offer_events')
    .values({ id, offer_id: null, client_id: e.clientId, sequence: 1, type: e.type, data: JSON.stringify(e.data) })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return id;
}

/** True when the step with this key already committed (its event exists): the retry is a no-op. */
export async function alreadyDone(trx: Trx, key: string): Promise<boolean> {
  return !!(await trx.selectFrom('offer_events').select('id').where('id', '=', derivedId('evt', key)).executeTakeFirst());
}

/**
 * Up to `limit` events not yet turned into deliveries, oldest first, locked for this transaction
 * (SKIP LOCKED: concurrent dispatchers never take the same event).
 */
export function takeUndispatchedEvents(trx: Trx, limit: number): Promise<OfferEventRow[]> {
  return trx
    .selectFrom('offer_events')
    .selectAll()
    .where('dispatched_at', 'is', null)
    .orderBy('created_at')
    .orderBy('sequence')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** Marks these events as turned into deliveries (the dispatcher's transaction took them). */
export async function markEventsDispatched(trx: Trx, ids: string[]): Promise<void> {
  await trx.updateTable('offer_events').set({ dispatched_at: new Date() }).where('id', 'in', ids).execute();
}

/** One outbox event by its id. */
export function findOfferEvent(db: Db | Trx, id: string): Promise<OfferEventRow | undefined> {
  return db.selectFrom('offer_events').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The channel the `offer_events_notify` trigger (migration 0006) notifies on every committed insert. */
const OFFER_EVENTS_CHANNEL = 'offer_events';

/** Calls `onEvents` whenever a transaction that appended outbox events commits. */
export function listenForOfferEvents(db: Db, onEvents: () => void): Promise<Listener> {
  return listen(db, OFFER_EVENTS_CHANNEL, onEvents);
}

/*
 * The change feed (docs/change-feed.md): the outbox read by `feed_position`, a number given to an
 * event only after its transaction committed, by one numbering transaction at a time. Why not the
 * order of writing: see docs/decisions/0038-change-feed-commit-ordered-position.md.
 */

/** The advisory lock that makes the numbering a single writer. */
const FEED_NUMBERING_LOCK = sql`hashtext('offer_events.feed_position')`;

/**
 * Gives every committed event without a feed position the next positions, after all positions
 * given before (one numbering at a time: the advisory lock). Its statement sees exactly the events
 * committed before it began; an event committing later gets a higher position from a later
 * numbering, so a reader that saw position N never misses an event placed below N. One offer's
 * events are numbered in their `sequence` order: its event n+1 was written under the offer's row
 * lock after event n committed, so a snapshot that sees n+1 sees n (numbered then or earlier).
 * Across offers, in the order they happened (the running latest `created_at` of the offer's events,
 * so that order never breaks an offer's own).
 */
export async function numberCommittedEvents(db: Db): Promise<void> {
  try {
    await numberInOneTransaction(db);
  } catch (err) {
    // Deleting a pending offer deletes its events (cascade) and may deadlock with this update; the
    // next read numbers them (readers read numbered events only, so nothing is lost meanwhile).
    if ((err as { code?: string }).code !== DEADLOCK) throw err;
  }
}

const DEADLOCK = '40P01';

async function numberInOneTransaction(db: Db): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(${FEED_NUMBERING_LOCK})`.execute(trx);
    await sql`
      with head as (select coalesce(max(feed_position), 0) as n from offer_events),
      fresh as (
        select id, coalesce(offer_id, id) as lane, sequence,
               max(created_at) over (partition by coalesce(offer_id, id) order by sequence) as settled
        from offer_events where feed_position is null
      ),
      ranked as (select id, row_number() over (order by settled, lane, sequence) as r from fresh)
      update offer_events e
         set feed_position = head.n + ranked.r, fed_at = clock_timestamp()
        from ranked, head
       where e.id = ranked.id`.execute(trx);
  });
}

/** The highest feed position given so far (0 when none). */
export async function feedHead(db: Db): Promise<number> {
  const row = await db
    .selectFrom('offer_events')
    .select((eb) => eb.fn.max('feed_position').as('head'))
    .executeTakeFirst();
  return Number(row?.head ?? 0);
}

/**
 * When the first event after feed position `position` got its place (`fed_at`): how old the oldest
 * event a reader at that position has not seen is; undefined when none follows it.
 */
export async function firstFedAtAfter(db: Db, position: number): Promise<Date | undefined> {
  const row = await db
    .selectFrom('offer_events')
    .select('fed_at')
    .where('feed_position', '>', String(position))
    .orderBy('feed_position')
    .limit(1)
    .executeTakeFirst();
  return row?.fed_at ?? undefined;
}

/**
 * Whose events a feed page reads: one submission client's offers, or offers ever published; and,
 * either way, the events addressed to this client alone.
 */
export type FeedScope = { clientId: string; publishedOffers?: false } | { clientId: string; publishedOffers: true };

/**
 * Up to `limit` numbered events after position `after` (and, when given, created at or after
 * `since`), in feed order, of the offers in `scope`. The caller applies the finer visibility rule.
 */
export function readFeedEvents(
  db: Db,
  q: { after: number; since?: Date; scope: FeedScope; limit: number },
): Promise<(OfferEventRow & { feed_position: string; fed_at: Date })[]> {
  let query = db
    .selectFrom('offer_events as e')
    .leftJoin('offers as o', 'o.id', 'e.offer_id')
    .selectAll('e')
    .where('e.feed_position', '>', String(q.after))
    .orderBy('e.feed_position')
    .limit(q.limit);
  if (q.since) query = query.where('e.created_at', '>=', q.since);
  const { clientId, publishedOffers } = q.scope;
  query = query.where((eb) =>
    eb.or([publishedOffers ? eb('o.published_at', 'is not', null) : eb('o.client_id', '=', clientId), eb('e.client_id', '=', clientId)]),
  );
  return query.execute() as Promise<(OfferEventRow & { feed_position: string; fed_at: Date })[]>;
}
