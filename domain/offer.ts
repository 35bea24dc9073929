import type { Location, RedemptionLocation } from './location';
import type { Money } from './money';
import type { VouchersExpire } from './voucher-expiry';

export type { Location, RedemptionLocation };

/*
 * The offer's document as the data layer reads it: the columns and search rows are derived from
 * these fields. The validated `OfferInput` (schemas/offer.ts) has them all, so it is one.
 */

/** The fields of an offer the store copies into columns and search rows (the whole document is stored as JSON). */
export interface OfferDocument {
  type: string;
  title: string;
  start_date: string;
  end_date: string;
  price?: Money;
  initial_quantity?: number;
  /** When vouchers expire; the review workflow closes the offer's sales when a fixed `on` is over. */
  vouchers_expire?: VouchersExpire;
  advertiser: {
    /** An existing advertiser of the client, named by its id (otherwise found or created by name). */
    id?: string;
    name: string;
    categories: ReadonlyArray<{ id: number }>;
    redemption_locations: readonly RedemptionLocation[];
  };
  /** The client's attachments the offer shows, held while the offer is written (store/attachments.ts). */
  creative?: { original_media?: ReadonlyArray<{ id: string }> };
}
