import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Timestamp } from './columns';

/* Bulk code imports and generation (docs/bulk-vouchers.md). */

/** Bigint counters: Postgres answers them as strings; written as numbers. */
type Count = ColumnType<string, number | undefined, number | string>;

export interface VoucherImportTable {
  id: string;
  client_id: string;
  offer_id: string;
  advertiser_id: string;
  kind: 'file' | 'generate';
  status: 'queued' | 'running' | 'completed' | 'failed';
  rows_total: Count;
  rows_imported: Count;
  rows_rejected: Count;
  source_key: string | null;
  data_start_byte: ColumnType<string | null, number | null | undefined, number | null>;
  /** A file's columns: the index of `redemption_code` and of `barcode` (null without one), and how many there are. */
  columns: ColumnType<ImportColumns | null, string | null | undefined, string | null>;
  /** Generation's pattern (domain/voucher-patterns.ts). */
  pattern: ColumnType<unknown, string | null | undefined, string | null>;
  failure_message: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
  finished_at: Timestamp | null;
  /** When the hourly pruning deleted its uploaded file (BULK_FILES_RETENTION_DAYS after it finished). */
  files_pruned_at: ColumnType<Date | null, never, Date | string>;
}

export interface ImportColumns {
  code: number;
  barcode: number | null;
  count: number;
}

export interface VoucherImportBatchTable {
  import_id: string;
  batch: number;
  end_byte: ColumnType<string, number, never>;
  next_row: ColumnType<string, number, never>;
  imported: number;
  rejected: number;
  created_at: Generated<Date>;
}

export interface VoucherImportRejectionTable {
  import_id: string;
  row: ColumnType<string, number, never>;
  redemption_code: string;
  error: string;
}

export type VoucherImportRow = Selectable<VoucherImportTable>;
