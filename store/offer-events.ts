import type { OfferEventRow } from './database';
import type { Db, Trx } from './db';
import { derivedId } from './ids';

/*
 * The offers' outbox: every change to an offer appends one event here, in the same transaction,
 * with the offer's next sequence number. Callbacks deliver these (store/callbacks.ts reads them).
 */

export type OfferEventType =
  | 'offer.created'
  | 'offer.status_changed'
  | 'offer.updated'
  | 'offer.review_overdue'
  | 'offer.stock_changed'
  | 'offer.sold_out'
  | 'offer.closed';

/** Appends an event with the offer's next sequence number; returns its id. The offer row must be locked or new. */
export async function appendOfferEvent(
  trx: Trx,
  e: { key: string; offerId: string; type: OfferEventType; data: Record<string, unknown> },
): Promise<string> {
  const id = derivedId('evt', e.key);
  const { event_sequence } = await trx
    .updateTable('offers')
    .set((eb) => ({ event_sequence: eb('event_sequence', '+', 1) }))
    .where('id', '=', e.offerId)
    .returning('event_sequence')
    .executeTakeFirstOrThrow();
  await trx
    .insertInto('offer_events')
    .values({ id, offer_id: e.offerId, sequence: event_sequence, type: e.type, data: JSON.stringify(e.data) })
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
