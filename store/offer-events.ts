import type { Trx } from './db';
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
