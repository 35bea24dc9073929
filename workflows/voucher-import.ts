import { continueAsNew, proxyActivities, upsertSearchAttributes, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { VoucherImportInput, VoucherImportResult } from './voucher-import-messages';
import { VoucherImportOfferKey, VoucherImportStatusKey } from './shared/search-attributes';
import { STEP_RETRY } from './shared/step-policy';

// A call runs up to BATCHES_PER_CALL batches, heartbeating after each: a worker that dies mid-call
// is noticed within the heartbeat timeout and the retry starts after the last committed batch
// (each batch's transaction records itself, so nothing is lost or done twice).
const { importVoucherBatches } = proxyActivities<Activities>({
  startToCloseTimeout: '15 minutes',
  heartbeatTimeout: '30 seconds',
  retry: STEP_RETRY,
});
const { startVoucherImport, finishVoucherImport } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: STEP_RETRY });

const BATCHES_PER_CALL = 10;
/** Calls per run before continue-as-new: each adds a few events; the history stays small whatever the file's size. */
const CALLS_PER_RUN = 20;

/**
 * One bulk code import or generation (docs/bulk-vouchers.md): marks it running, imports its batches
 * call by call, and records the end with its `voucher_import.completed` event. A step failed for
 * good (retries spent, or refused) fails the import, keeping what earlier batches committed.
 */
export async function voucherImportWorkflow(input: VoucherImportInput): Promise<VoucherImportResult> {
  upsertSearchAttributes([
    { key: VoucherImportOfferKey, value: input.offerId },
    { key: VoucherImportStatusKey, value: 'running' },
  ]);
  try {
    if (!input.started) await startVoucherImport({ importId: input.importId });
    for (let call = 0; call < CALLS_PER_RUN && !workflowInfo().continueAsNewSuggested; call++) {
      const progress = await importVoucherBatches({ importId: input.importId, maxBatches: BATCHES_PER_CALL });
      if (progress.done) return await finish(input, 'completed');
    }
  } catch (err) {
    return finish(
      input,
      'failed',
      (err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message,
    );
  }
  return continueAsNew<typeof voucherImportWorkflow>({ ...input, started: true });
}

async function finish(input: VoucherImportInput, status: 'completed' | 'failed', message?: string): Promise<VoucherImportResult> {
  upsertSearchAttributes([{ key: VoucherImportStatusKey, value: status }]);
  const end = await finishVoucherImport({ importId: input.importId, status, message });
  return { ...end, status };
}
