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

/**
 * The customer as limit_per_customer counts them: the publisher's `customer_reference` when the
 * order gives one, else its `customer_name` trimmed and case-folded. Prefixed, so a reference never
 * equals a name by chance. Counted per distribution client: publishers' customers are their own.
 */
export function customerKey(reference: string | null | undefined, name: string): string {
  const ref = reference?.trim();
  return ref ? `ref:${ref}` : `name:${name.trim().normalize('NFKC').toLocaleLowerCase('und')}`;
}

/**
 * Refuses (409 `customer_limit_reached` on `field`) an order item that would give this customer
 * more live (not cancelled) vouchers of the offer than its `limit_per_customer`; `held` is how many
 * they hold now, counted under the offer's lock.
 */
export function requireWithinCustomerLimit(offer: { id: string; document: unknown }, held: number, quantity: number, field: string): void {
  const limit = restrictionsOf(offer.document).limit_per_customer;
  if (limit === undefined || held + quantity <= limit) return;
  throw new Failure(
    'customer_limit_reached',
    `offer ${offer.id} sells at most ${limit} unit(s) per customer (restrictions.limit_per_customer); this customer holds ${held} and asked ${quantity}`,
    { field, offer_id: offer.id, limit_per_customer: limit, held, available: Math.max(0, limit - held) },
  );
}
