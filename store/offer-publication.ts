import type { Db } from './db';
import { alreadyDone, appendOfferEvent } from './offer-events';
import { lockOffer } from './offer-stock';
import { SELLABLE, type OfferStatus } from '../domain/offer-lifecycle';

/*
 * An approved offer going on sale at its start_date (the review workflow's timer). It writes the
 * offers table beside store/offers.ts, apart from it so each file keeps one concern.
 */

/**
 * The offer's start_date has begun (the review workflow's timer): an approved or resumed offer goes
 * on sale now. Stamps published_at (first time) and updated_at, and appends `offer.published`,
 * which distributors hear. Nothing happens if it is not sellable by then (it publishes on resume).
 */
export async function publishOffer(db: Db, p: { key: string; offerId: string }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    if (await alreadyDone(trx, p.key)) return;
    const row = await lockOffer(trx, p.offerId, ['status', 'published_at', 'start_date']);
    if (!SELLABLE.includes(row.status as OfferStatus)) return;
    const now = new Date();
    await trx
      .updateTable('offers')
      .set({ published_at: row.published_at ?? now, updated_at: now })
      .where('id', '=', p.offerId)
      .execute();
    await appendOfferEvent(trx, { key: p.key, offerId: p.offerId, type: 'offer.published', data: { start_date: row.start_date } });
  });
}
