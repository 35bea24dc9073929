import { z } from 'zod';
import { BULK_STATUSES } from '../domain/bulk';
import { okEnvelope } from './envelope';
import { Timestamp } from './common';

/*
 * A voucher export (docs/bulk-offers-and-exports.md): one CSV of an offer's vouchers, written by
 * a workflow; `rows` grows while it runs; once completed, `download_url` is a signed link that
 * works until `expires_at` (each read signs a new one).
 */

export const BulkStatus = z.enum(BULK_STATUSES);

export const VoucherExport = z.object({
  id: z.string(),
  offer_id: z.string(),
  status: BulkStatus,
  rows: z.number().int().describe('Rows written so far'),
  download_url: z.string().nullable().describe('The CSV once completed: a signed link, no API key'),
  expires_at: Timestamp.nullable(),
  error: z.string().nullable(),
  created_at: Timestamp,
  finished_at: Timestamp.nullable(),
});
export type VoucherExport = z.infer<typeof VoucherExport>;

export const VoucherExportResponse = okEnvelope('voucher_export', VoucherExport);

/** The download link's query: the time it expires (Unix seconds) and its signature. */
export const VoucherExportDownloadQuery = z.object({
  expires: z.coerce.number().int().min(0),
  signature: z.string().max(100),
});
