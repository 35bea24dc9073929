import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Search attributes of offer-review workflows, so operators can filter in the Temporal UI or with
 * `temporal workflow list --query "OfferStatus='pending'"`. infra/local/temporal.ts registers them at start.
 */
export const OfferStatusKey = defineSearchAttributeKey('OfferStatus', SearchAttributeType.KEYWORD);
export const AdvertiserNameKey = defineSearchAttributeKey('AdvertiserName', SearchAttributeType.KEYWORD);
export const OfferTypeKey = defineSearchAttributeKey('OfferType', SearchAttributeType.KEYWORD);

/** Of voucher-import workflows: `temporal workflow list --query "VoucherImportStatus='running'"` (docs/bulk-vouchers.md). */
export const VoucherImportOfferKey = defineSearchAttributeKey('VoucherImportOffer', SearchAttributeType.KEYWORD);
export const VoucherImportStatusKey = defineSearchAttributeKey('VoucherImportStatus', SearchAttributeType.KEYWORD);

/**
 * Voucher exports' and offer imports' workflows carry the kind of job, so
 * `temporal workflow list --query "BulkJob='voucher_export'"` lists them (docs/bulk-offers-and-exports.md).
 */
export const BulkJobKey = defineSearchAttributeKey('BulkJob', SearchAttributeType.KEYWORD);

export const OFFER_SEARCH_ATTRIBUTES = [
  OfferStatusKey,
  AdvertiserNameKey,
  OfferTypeKey,
  VoucherImportOfferKey,
  VoucherImportStatusKey,
  BulkJobKey,
];
