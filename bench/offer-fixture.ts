import { changeOfferStatus, insertOffer } from '../store/offers';
import { newId } from '../store/ids';
import { OfferInput } from '../schemas/offer';
import type { Db } from '../store/db';

/*
 * The offers the benchmarks and the chaos run sell. bench/ imports nothing of test/; the suite's
 * fixtures (test/setup/fixtures.ts) take their deal from here instead.
 */

/** A complete, valid deal as an advertiser would POST it (the JSON body of `{offer: …}`), with the given changes. */
export function offerBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    title: 'Two-course dinner for two',
    type: 'deal',
    price: { currency_code: 'USD', amount: 4500 },
    value: { currency_code: 'USD', amount: 9000 },
    discount: { type: 'percentage', percentage: 50 },
    fine_print: 'Valid Monday to Thursday. Reservation required.',
    start_date: '2026-01-01',
    end_date: '2099-12-31',
    vouchers_expire: { on: '2099-12-31' },
    initial_quantity: 100,
    creative: {
      requires_editorial_support: false,
      headlines: ['Dinner for two', 'Half price'],
      description: 'A fine dinner.',
      original_media: [],
    },
    advertiser: {
      name: 'Trattoria Roma',
      description: 'Family Italian restaurant',
      categories: [{ id: 2 }],
      redemption_locations: [
        { address_line_1: '350 5th Ave', city: 'New York', state_code: 'NY', postal_code: '10118', country_code: 'US' },
      ],
      website_url: 'https://trattoria.example',
      public_phone: '+1 212 555 0100',
    },
    custom_attributes: [{ name: 'cuisine', value: 'italian' }],
    ...overrides,
  };
}

/** The deal with plenty of stock, and the given changes, parsed as the API would. */
export function dealInput(overrides: Record<string, unknown> = {}): OfferInput {
  return OfferInput.parse(offerBody({ initial_quantity: 1_000_000, ...overrides }));
}

/** One approved offer written as the API would (transaction + events), without a review workflow. */
export async function approvedOffer(db: Db, clientId: string, input: OfferInput): Promise<string> {
  const id = newId('ofr');
  // Supplied codes go to their own table, as the offers service sends them (services/offers.ts).
  const { vouchers: suppliedCodes, ...rest } = input;
  await insertOffer(db, { id, clientId, input: suppliedCodes ? { ...rest, initial_quantity: suppliedCodes.length } : rest, suppliedCodes });
  await changeOfferStatus(db, { key: `seed:${id}:approve`, offerId: id, to: 'approved', actor: 'review_team' });
  return id;
}
