/*
 * The voucher-import workflow's contract (docs/bulk-vouchers.md): one run per bulk code import or
 * generation, started by services/voucher-imports.ts with the import's row already written.
 */

export const VOUCHER_IMPORT_WORKFLOW_TYPE = 'voucherImportWorkflow';

export interface VoucherImportInput {
  importId: string;
  offerId: string;
  /** Continue-as-new: the import was marked running by an earlier run. */
  started?: boolean;
}

/** Where an import stands: whether rows are left, and its counts (the row's, committed). */
export interface VoucherImportProgress {
  done: boolean;
  rowsImported: number;
  rowsRejected: number;
}

export interface VoucherImportResult extends VoucherImportProgress {
  status: 'completed' | 'failed';
}

/** Test seams only (a worker stopped inside a batch's transaction); never set in production. */
export interface ImportHooks {
  batchWritten?: (importId: string, batch: number) => Promise<void>;
}
