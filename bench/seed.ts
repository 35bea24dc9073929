import { sql } from 'kysely';
import zipcodes from 'zipcodes';
import { ensureAdvertiser } from '../store/advertisers';
import { newId } from '../store/ids';
import { validOffer, writeOffer } from '../test/setup/fixtures';
import { OfferInput } from '../schemas/offer';
import type { Db } from '../store/db';

/** A valid deal (the test fixtures' offer) with plenty of stock, and the given changes. */
export function dealInput(overrides: Record<string, unknown> = {}): OfferInput {
  return OfferInput.parse(validOffer({ initial_quantity: 1_000_000, ...overrides }));
}

/** One approved offer written as the API would (transaction + events), without a review workflow. */
export function approvedOffer(db: Db, clientId: string, input: OfferInput): Promise<string> {
  return writeOffer(db, clientId, input, 'approved');
}

const US_ZIPS = Object.values(zipcodes.codes).filter((z) => z.country === 'US');

/**
 * Approved offers in bulk (plain multi-row inserts, 1,000 a statement), each redeemable at one real
 * US ZIP code: the catalogue the search benchmark queries.
 */
export async function bulkApprovedOffers(db: Db, clientId: string, count: number): Promise<void> {
  const template = dealInput();
  const now = new Date();
  const advertiserId = await ensureAdvertiser(db, clientId, template.advertiser.name);
  for (let done = 0; done < count; done += 1000) {
    const batch = Array.from({ length: Math.min(1000, count - done) }, (_, i) => {
      const zip = US_ZIPS[((done + i) * 7919) % US_ZIPS.length];
      const price = 500 + (((done + i) * 37) % 20000);
      const id = newId('ofr');
      const doc = {
        ...template,
        title: `Bench offer ${done + i}`,
        price: { currency_code: 'USD', amount: price },
        value: { currency_code: 'USD', amount: price * 2 },
      };
      doc.advertiser = {
        ...template.advertiser,
        redemption_locations: [{ city: zip.city, state_code: zip.state, postal_code: zip.zip, country_code: 'US' }],
      };
      return { id, zip, price, doc };
    });
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('offers')
        .values(
          batch.map((b) => ({
            id: b.id,
            client_id: clientId,
            advertiser_id: advertiserId,
            status: 'approved',
            type: 'deal',
            title: b.doc.title,
            start_date: b.doc.start_date,
            end_date: b.doc.end_date,
            price_amount: b.price,
            currency_code: 'USD',
            initial_quantity: 1000,
            quantity_in_stock: 1000,
            document: JSON.stringify(b.doc),
            published_at: now,
          })),
        )
        .execute();
      await trx
        .insertInto('offer_locations')
        .values(
          batch.map((b) => ({
            offer_id: b.id,
            position: 0,
            city: b.zip.city.toLowerCase(),
            state_code: b.zip.state,
            postal_code: b.zip.zip,
            country_code: 'US',
            latitude: b.zip.latitude,
            longitude: b.zip.longitude,
          })),
        )
        .execute();
      await trx
        .insertInto('offer_categories')
        .values(batch.map((b) => ({ offer_id: b.id, category_id: 2 })))
        .execute();
    });
  }
  // What autovacuum does shortly after a bulk load (statistics, and the visibility map that lets
  // the search's index-only scans skip the table): measured right away, the bench does it itself.
  await sql`VACUUM ANALYZE offers, offer_locations, offer_categories`.execute(db);
}
