import type { OfferRow } from '../store/database';
import type { OfferInput, OfferStatus, SubmissionOffer } from './offer';

/** The offer as its advertiser sees it on the submission interface. */
export function toSubmissionOffer(row: OfferRow): SubmissionOffer {
  const doc = row.document as OfferInput;
  return {
    ...doc,
    id: row.id,
    status: row.status as OfferStatus,
    advertiser: { ...doc.advertiser, id: row.advertiser_id },
    quantity_in_stock: row.quantity_in_stock,
    reserved_quantity: row.reserved_quantity,
    created_at: row.created_at,
    updated_at: row.updated_at,
    submitted_at: row.submitted_at,
    reviewed_at: row.reviewed_at,
    rejection_reason: row.rejection_reason,
    published_at: row.published_at,
    closed_at: row.closed_at,
  };
}
