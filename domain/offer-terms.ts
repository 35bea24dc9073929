import { Failure } from './failures';

/*
 * The advertiser's restrictions an order must keep (issue 20): how many units one order may buy
 * (`limit_per_order`) and how many one customer may hold (`limit_per_customer`). Pure rules: the
 * placing transaction (store/orders.ts) applies them to the offer it has locked, so parallel
 * orders are decided one after another. docs/orders-and-vouchers.md, "The advertiser's restrictions".
 */

/** The restrictions an offer's stored document (the validated OfferInput) carries, as these rules read them. */
export interface SaleRestrictions {
  limit_per_order?: number;
  limit_per_customer?: number;
}

/** The `restrictions` of an offer's stored document, or an empty set. */
export function restrictionsOf(document: unknown): SaleRestrictions {
  return (document as { restrictions?: SaleRestrictions } | null)?.restrictions ?? {};
}

/** Refuses (422 `invalid_field` on `field`) an order item above the offer's `limit_per_order`. */
export function requireWithinOrderLimit(offer: { id: string; document: unknown }, quantity: number, field: string): void {
  const limit = restrictionsOf(offer.document).limit_per_order;
  if (limit === undefined || quantity <= limit) return;
  throw new Failure(
    'invalid_field',
    `offer ${offer.id} sells at most ${limit} unit(s) per order (restrictions.limit_per_order); ${quantity} asked`,
    {
      field,
      offer_id: offer.id,
      limit_per_order: limit,
    },
  );
}
