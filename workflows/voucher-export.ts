import { continueAsNew, isCancellation, proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { FIRST_EXPORT_CURSOR } from '../domain/bulk';
import {
  VOUCHER_EXPORT_PARTS_PER_RUN,
  type VoucherExportInput,
  type VoucherExportPartResult,
  type VoucherExportResult,
  type VoucherExportResume,
} from './voucher-export-messages';
import { STEP_RETRY } from './shared/step-policy';
import { PINNED_RUN } from './shared/versioning';

const { startVoucherExportUpload, completeVoucherExport, failVoucherExport } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: STEP_RETRY,
});
// A part reads about 5 MiB of rows (tens of thousands) and uploads them; a stalled one is noticed by its heartbeat.
const { writeVoucherExportPart } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: STEP_RETRY,
});

/** What a step's failure says (the activity's own error, under the SDK's "Activity task failed"). */
const failureReason = (err: unknown) => {
  const e = err as { message?: string; cause?: { message?: string } };
  return e.cause?.message ?? e.message ?? String(err);
};

/**
 * Writes an offer's vouchers to one CSV in the object store, one multipart part per step, each read
 * by keyset from the last one's end; continues as new every VOUCHER_EXPORT_PARTS_PER_RUN parts. A
 * step that fails for good marks the export failed (its upload aborted) instead of leaving it running.
 */
export async function voucherExportWorkflow(input: VoucherExportInput): Promise<VoucherExportResult> {
  const { resume: _resume, ...job } = input;
  let state: VoucherExportResume | undefined = input.resume;
  try {
    state ??= { uploadId: await startVoucherExportUpload(job), parts: [], cursor: FIRST_EXPORT_CURSOR, rows: 0 };
    for (let n = 0; state.cursor.phase !== 'done' && n < VOUCHER_EXPORT_PARTS_PER_RUN; n++) {
      const part: number = state.parts.length + 1;
      const r: VoucherExportPartResult = await writeVoucherExportPart({
        ...job,
        uploadId: state.uploadId,
        part,
        cursor: state.cursor,
        rowsBefore: state.rows,
      });
      state = { ...state, parts: [...state.parts, { part, etag: r.etag }], cursor: r.next, rows: r.rows };
    }
    if (state.cursor.phase === 'done')
      await completeVoucherExport({ ...job, uploadId: state.uploadId, parts: state.parts, rows: state.rows });
  } catch (err) {
    if (isCancellation(err)) throw err;
    await failVoucherExport({ ...job, uploadId: state?.uploadId, error: failureReason(err) });
    return { status: 'failed', rows: state?.rows ?? 0 };
  }
  if (state.cursor.phase !== 'done') return continueAsNew<typeof voucherExportWorkflow>({ ...job, resume: state });
  return { status: 'completed', rows: state.rows };
}

// An export takes seconds to minutes, and its continued runs stay on the version it started on: pinned, no patches.
setWorkflowOptions(PINNED_RUN, voucherExportWorkflow);
