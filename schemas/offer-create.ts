import { z } from 'zod';
import { wrappedBody } from './envelope';
import { offerFields, offerRules } from './offer';

/*
 * The body of `POST /offers` (the offer resource itself is schemas/offer.ts): every field an
 * advertiser writes, and the stock also under the spec's name `quantity_in_stock` (issue 20 item 7).
 */

/**
 * The stock, when the client names it as the spec's own `quantity_in_stock` on create. It is the
 * stock when `initial_quantity` is absent, so an offer written to the spec never loses its stock;
 * both given and different is an error naming both (docs/offer-lifecycle.md).
 */
export const STOCK_ALIAS = z.number().int().min(0).max(10_000_000);

/** The stock a create body asks for: initial_quantity, else quantity_in_stock (undefined: neither). */
export const createdStock = (o: { initial_quantity?: number; quantity_in_stock?: number }) => o.initial_quantity ?? o.quantity_in_stock;

/** POST body: an offer, whose stock may also be given as `quantity_in_stock` (then stored as initial_quantity). */
export const OfferCreate = z
  .object({
    ...offerFields,
    quantity_in_stock: STOCK_ALIAS.optional().describe(
      'The stock, as the spec names it: used as initial_quantity when that is absent; both given must be equal',
    ),
  })
  .superRefine((o, ctx) => {
    const { quantity_in_stock: alias, ...rest } = o;
    if (alias !== undefined && o.initial_quantity !== undefined && alias !== o.initial_quantity)
      ctx.addIssue({
        code: 'custom',
        path: ['quantity_in_stock'],
        message: `initial_quantity (${o.initial_quantity}) and quantity_in_stock (${alias}) both give the stock and differ: send one of them, or the same number in both`,
      });
    offerRules({ ...rest, initial_quantity: createdStock(o) }, ctx);
  });
export type OfferCreate = z.infer<typeof OfferCreate>;

// The example is what the OpenAPI documents (and so the reference and generated clients) show.
export const OfferCreateBody = wrappedBody('offer', OfferCreate).meta({
  examples: [
    {
      offer: {
        title: 'Two-course dinner for two',
        type: 'deal',
        price: { currency_code: 'USD', amount: 4500 },
        value: { currency_code: 'USD', amount: 9000 },
        start_date: '2026-01-01',
        end_date: '2027-12-31',
        vouchers_expire: { on: '2028-03-31' },
        initial_quantity: 100,
        fine_print: 'Monday to Thursday.',
        creative: { headlines: ['Dinner for two'], original_media: [] },
        advertiser: {
          name: 'Trattoria Roma',
          categories: [{ id: 2 }],
          redemption_locations: [
            { address_line_1: '350 5th Ave', city: 'New York', state_code: 'NY', postal_code: '10118', country_code: 'US' },
          ],
        },
      },
    },
  ],
});
