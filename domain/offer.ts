import type { Money } from './money';

/*
 * The offer's document as the data layer reads it: the columns and search rows are derived from
 * these fields. The validated `OfferInput` (schemas/offer.ts) has them all, so it is one.
 */

/** A place where vouchers are redeemed, as the advertiser wrote it. */
export interface Location {
  address_line_1?: string;
  address_line_2?: string;
  city?: string;
  state_code?: string;
  postal_code?: string;
  country_code?: string;
}

/** The fields of an offer the store copies into columns and search rows (the whole document is stored as JSON). */
export interface OfferDocument {
  type: string;
  title: string;
  start_date: string;
  end_date: string;
  price?: Money;
  initial_quantity?: number;
  advertiser: {
    name: string;
    categories: ReadonlyArray<{ id: number }>;
    redemption_locations: readonly Location[];
  };
}
