import type { ExportCursor } from '../domain/bulk';

/*
 * The voucher export workflow's contract (docs/bulk-offers-and-exports.md): it writes one CSV of
 * an offer's vouchers to the object store as an S3 multipart upload, one part per step, each part
 * read by keyset from where the last ended; the export's row shows the rows written so far.
 */

export const VOUCHER_EXPORT_WORKFLOW_TYPE = 'voucherExportWorkflow';

export interface VoucherExportInput {
  exportId: string;
  offerId: string;
  /** Set when a distribution client asked: only the vouchers it sold. */
  distributionClientId?: string;
  objectKey: string;
  /** Set by a run that continued as new. */
  resume?: VoucherExportResume;
}

export interface VoucherExportResult {
  status: 'completed' | 'failed';
  rows: number;
}

export interface VoucherExportPartInput extends Omit<VoucherExportInput, 'resume'> {
  uploadId: string;
  part: number;
  cursor: ExportCursor;
  /** Rows written by the parts before this one. */
  rowsBefore: number;
}

export interface VoucherExportPartResult {
  etag: string;
  next: ExportCursor;
  /** Rows written with this part included. */
  rows: number;
}

/** Parts one run uploads before continuing as new (its history stays small; S3 takes 10,000 parts). */
export const VOUCHER_EXPORT_PARTS_PER_RUN = 200;

/** Where a run continued as new picks up: the upload, the parts done, the next page. */
export interface VoucherExportResume {
  uploadId: string;
  parts: { part: number; etag: string }[];
  cursor: ExportCursor;
  rows: number;
}
