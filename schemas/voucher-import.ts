import { z } from 'zod';
import { INTERFACE_PREFIX } from '../domain/environment';
import { MAX_IMPORT_ROWS } from '../domain/voucher-imports';
import { BulkStatus } from './voucher-export';
import type { VoucherImportRow } from '../store/database';
import { boundedInt, iso, isoOrNull } from './common';
import { listEnvelope, okEnvelope } from './envelope';

/*
 * Bulk code imports and generation (docs/bulk-vouchers.md): POST /offers/:id/voucher_imports takes
 * a CSV file (text/csv, or multipart `voucher_import[file]`) or `{voucher_import: {generate}}`;
 * GET /voucher_imports/:id and GET /offers/:id/voucher_imports show progress.
 */

/** The multipart file part's name. */
export const VOUCHER_IMPORT_FILE_FIELD = 'voucher_import[file]';

export const CodePatternInput = z
  .object({
    charset: z.string().min(2).max(64).optional(),
    length: boundedInt(1, 64).optional(),
    mask: z.string().min(1).max(64).optional().describe('e.g. `####-####`: # is random'),
    prefix: z.string().max(32).optional(),
    postfix: z.string().max(32).optional(),
  })
  .strict();

export const VoucherImportCreate = z
  .object({
    voucher_import: z
      .object({
        generate: z
          .object({
            count: boundedInt(1, MAX_IMPORT_ROWS),
            pattern: CodePatternInput.default({}),
          })
          .strict(),
      })
      .strict(),
  })
  .strict();
export type VoucherImportCreate = z.infer<typeof VoucherImportCreate>;

export const VoucherImport = z.object({
  id: z.string(),
  offer_id: z.string(),
  status: BulkStatus,
  kind: z.enum(['file', 'generate']),
  rows_total: z.number().int(),
  rows_imported: z.number().int(),
  rows_rejected: z.number().int(),
  errors_url: z.string().describe('CSV: row, redemption_code, error'),
  failure_message: z.string().nullable(),
  created_at: z.string(),
  finished_at: z.string().nullable(),
});
export type VoucherImport = z.infer<typeof VoucherImport>;

export const VoucherImportResponse = okEnvelope('voucher_import', VoucherImport);
export const VoucherImportList = listEnvelope('voucher_imports', VoucherImport);

/** The resource as both the API and the `voucher_import.completed` event show it; `base` is the submission interface's address. */
export function toVoucherImport(row: VoucherImportRow, base: string): VoucherImport {
  return {
    id: row.id,
    offer_id: row.offer_id,
    status: row.status,
    kind: row.kind,
    rows_total: Number(row.rows_total),
    rows_imported: Number(row.rows_imported),
    rows_rejected: Number(row.rows_rejected),
    errors_url: `${base}/voucher_imports/${row.id}/errors.csv`,
    failure_message: row.failure_message,
    created_at: iso(row.created_at),
    finished_at: isoOrNull(row.finished_at),
  };
}

/** The data of an import's `voucher_import.completed` event: the import as GET shows it, under PUBLIC_BASE_URL. */
export const voucherImportEventData = (row: VoucherImportRow, publicBaseUrl: string | undefined) => ({
  voucher_import: toVoucherImport(row, `${publicBaseUrl ?? ''}${INTERFACE_PREFIX.submission}`),
});
