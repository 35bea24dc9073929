/*
 * Bulk work's vocabulary (docs/bulk-offers-and-exports.md): the states an export or an import
 * moves through, and where a voucher export's next page starts.
 */

/** queued (accepted, workflow not yet writing), running, then completed or failed. */
export const BULK_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type BulkStatus = (typeof BULK_STATUSES)[number];

/**
 * Where the next page of a voucher export starts (keyset, never OFFSET): the vouchers after an id,
 * then (an advertiser's export) the codes not issued yet after a sequence number.
 */
export type ExportCursor = { phase: 'vouchers'; after: string } | { phase: 'codes'; after: string } | { phase: 'done' };

export const FIRST_EXPORT_CURSOR: ExportCursor = { phase: 'vouchers', after: '' };

/** The lines an offer import takes at most. */
export const OFFER_IMPORT_MAX_LINES = 10_000;

/**
 * Bytes of error records one offer import keeps for its refused lines (docs/security.md): past
 * them a refused line keeps one short detail, so the errors stay near the file's size, not a multiple.
 */
export const OFFER_IMPORT_MAX_ERROR_BYTES = 4 * 1024 * 1024;
