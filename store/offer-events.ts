import { sql } from 'kysely';
import type { OfferEventRow } from './database';
import { listen, type Db, type Listener, type Trx } from './db';
import { derivedId } from './ids';

/*
 * The offers' outbox: every change to an offer appends one event here, in the same transaction,
 * with the offer's next sequence number. Callbacks deliver these (store/callback-fanout.ts reads them);
 * the change feed numbers, pages and prunes them (store/event-feed.ts).
 */

export type OfferEventType =
  | 'offer.created'
  | 'offer.status_changed'
  | 'offer.published'
  | 'offer.updated'
  | 'offer.review_overdue'
  /** An operator opened the pending review in the console (store/offer-reviews.ts). */
  | 'offer.review_started'
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
export type ClientEventType = 'statement.ready' | 'endpoint.disabled' | 'voucher_import.completed' | 'offer_import.completed';

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
