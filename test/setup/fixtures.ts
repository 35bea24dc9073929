import { insertOffer, changeOfferStatus } from '../../activities/offer-records';
import { newId } from '../../activities/ids';
import { OfferInput } from '../../api/schemas/offer';
import type { Harness } from './harness';

/** A complete, valid deal as an advertiser would POST it (JSON body of `{offer: …}`). */
export function validOffer(overrides: Record<string, unknown> = {}): Record<string, unknown> {
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
    creative: { requires_editorial_support: false, headlines: ['Dinner for two', 'Half price'], description: 'A fine dinner.', original_media: [] },
    advertiser: {
      name: 'Trattoria Roma',
      description: 'Family Italian restaurant',
      categories: [{ id: 2 }],
      redemption_locations: [{ address_line_1: '350 5th Ave', city: 'New York', state_code: 'NY', postal_code: '10118', country_code: 'US' }],
      website_url: 'https://trattoria.example',
      public_phone: '+1 212 555 0100',
    },
    custom_attributes: [{ name: 'cuisine', value: 'italian' }],
    ...overrides,
  };
}

/**
 * An offer written straight to the database in the given status, for tests of other areas
 * (search, orders) that need sellable offers without driving a review workflow.
 */
export async function seedOffer(h: Harness, clientId: string, overrides: Record<string, unknown> = {}, status: 'pending' | 'approved' | 'suspended' | 'cancelled' = 'approved'): Promise<string> {
  const id = newId('ofr');
  await insertOffer(h.services.db, { id, clientId, input: OfferInput.parse(validOffer(overrides)) });
  if (status !== 'pending') {
    await changeOfferStatus(h.services.db, { key: `seed:${id}:approve`, offerId: id, to: 'approved', actor: 'review_team' });
  }
  if (status === 'suspended' || status === 'cancelled') {
    await changeOfferStatus(h.services.db, { key: `seed:${id}:${status}`, offerId: id, to: status, actor: 'advertiser' });
  }
  return id;
}
