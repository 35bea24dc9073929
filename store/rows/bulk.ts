import type { ColumnType, Selectable } from 'kysely';
import type { Timestamp } from './columns';
import type { BulkStatus } from '../../domain/bulk';

/* Bulk work: voucher exports and offer imports (migration 0055; docs/bulk-offers-and-exports.md). */

export interface VoucherExportTable {
  id: string;
  client_id: string;
  offer_id: string;
  interface: 'submission' | 'distribution';
  status: BulkStatus;
  rows: ColumnType<number, number | undefined, number>;
  object_key: string;
  signing_key: string;
  error: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Timestamp;
  finished_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** When the hourly pruning deleted its file (BULK_FILES_RETENTION_DAYS after it finished). */
  files_pruned_at: ColumnType<Date | null, never, Date | string>;
}

export interface OfferImportTable {
  id: string;
  client_id: string;
  status: BulkStatus;
  rows_total: number;
  rows_created: ColumnType<number, number | undefined, number>;
  rows_rejected: ColumnType<number, number | undefined, number>;
  created_at: Timestamp;
  finished_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface OfferImportLineTable {
  import_id: string;
  line: number;
  /** The validated `offer` of the line, still to create (null once refused by validation). */
  offer: ColumnType<unknown, string | null | undefined, string | null>;
  offer_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** The error body's `errors` the API would have answered for this line. */
  errors: ColumnType<unknown, string | null | undefined, string | null>;
}

export type VoucherExportRow = Selectable<VoucherExportTable>;
export type OfferImportRow = Selectable<OfferImportTable>;
export type OfferImportLineRow = Selectable<OfferImportLineTable>;
