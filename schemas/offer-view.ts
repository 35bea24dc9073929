import { suppliedBarcode } from '../domain/barcodes';
import { offerClosedAt } from '../domain/offer-closing';
import type { OfferRow } from '../store/database';
import type { SuppliedCounts, SuppliedVoucherState } from '../store/supplied-vouchers';
import type { OfferInput, OfferStatus, SubmissionOffer, SuppliedVoucher } from './offer';

/** The first supplied codes of an offer that sells supplied codes, and their counts. */
export type SuppliedSummary = { codes: SuppliedVoucherState[]; counts: SuppliedCounts };

/** A supplied code as the submission offer shows it. */
export function toSuppliedVoucher(v: SuppliedVoucherState): SuppliedVoucher {
  return {
    id: v.id,
    redemption_code: v.redemption_code,
    barcode: suppliedBarcode(v),
    status: v.status,
    redeemed_at: v.redeemed_at,
    cancelled_at: v.cancelled_at,
  };
}

/** The offer as its advertiser sees it on the submission interface. */
export function toSubmissionOffer(row: OfferRow, supplied?: SuppliedSummary): SubmissionOffer {
  const { vouchers: _stored, ...doc } = row.document as OfferInput;
  return {
    ...doc,
    id: row.id,
    status: row.status as OfferStatus,
    advertiser: { ...doc.advertiser, id: row.advertiser_id },
    ...(supplied ? { vouchers: supplied.codes.map(toSuppliedVoucher), vouchers_count: supplied.counts } : {}),
    quantity_in_stock: row.quantity_in_stock,
    reserved_quantity: row.reserved_quantity,
    unplaced_locations: row.unplaced_locations,
    created_at: row.created_at,
    updated_at: row.updated_at,
    submitted_at: row.submitted_at,
    reviewed_at: row.reviewed_at,
    rejection_reason: row.rejection_reason,
    published_at: row.published_at,
    // The rule the distribution interface shows too, not the column alone (set only by closing).
    closed_at: offerClosedAt(row),
  };
}
