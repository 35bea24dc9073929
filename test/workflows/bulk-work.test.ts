import { ApplicationFailure } from '@temporalio/common';
import type { ExportCursor } from '../../domain/bulk';
import { OFFER_IMPORT_BATCH, OFFER_IMPORT_WORKFLOW_TYPE, type OfferImportInput } from '../../workflows/offer-import-messages';
import {
  VOUCHER_EXPORT_WORKFLOW_TYPE,
  type VoucherExportInput,
  type VoucherExportPartInput,
  type VoucherExportResult,
} from '../../workflows/voucher-export-messages';
import { ActivityCalls, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';

/*
 * The bulk workflows with their activities replaced: an export chains its parts by the cursor each
 * returns and completes the upload with every part in order, or marks the export failed (upload
 * aborted) when a part fails for good; an import takes batches until one comes back short.
 */
describe('voucher export and offer import workflows', () => {
  let env: WorkflowTestEnv;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
  });
  afterAll(() => env?.close());

  const exportRun = (taskQueue: string) =>
    env.client.workflow.execute<(i: VoucherExportInput) => Promise<VoucherExportResult>>(VOUCHER_EXPORT_WORKFLOW_TYPE, {
      workflowId: `voucher-export-test-${taskQueue}`,
      taskQueue,
      args: [{ exportId: 'vex_1', offerId: 'ofr_1', objectKey: 'voucher-exports/vex_1.csv' }],
    });
  const cursors: ExportCursor[] = [{ phase: 'vouchers', after: 'vch_a' }, { phase: 'codes', after: '17' }, { phase: 'done' }];

  it('writes part after part from the cursor each returned, then completes the upload with all of them', async () => {
    const calls = new ActivityCalls();
    const doubles = calls.wrap({
      startVoucherExportUpload: async () => 'upload-1',
      writeVoucherExportPart: async (a: VoucherExportPartInput) => ({
        etag: `etag-${a.part}`,
        next: cursors[a.part - 1],
        rows: a.rowsBefore + 10,
      }),
      completeVoucherExport: async () => undefined,
      failVoucherExport: async () => undefined,
    });
    expect(await env.withWorker(doubles, exportRun)).toEqual({ status: 'completed', rows: 30 });
    const parts = calls.of('writeVoucherExportPart') as VoucherExportPartInput[];
    expect(parts.map((a) => [a.part, a.cursor, a.rowsBefore])).toEqual([
      [1, { phase: 'vouchers', after: '' }, 0],
      [2, cursors[0], 10],
      [3, cursors[1], 20],
    ]);
    expect(calls.of('completeVoucherExport')).toEqual([
      expect.objectContaining({
        uploadId: 'upload-1',
        rows: 30,
        parts: [1, 2, 3].map((part) => ({ part, etag: `etag-${part}` })),
      }),
    ]);
    expect(calls.of('failVoucherExport')).toHaveLength(0);
  });

  it('marks the export failed and aborts its upload when a part fails for good', async () => {
    const calls = new ActivityCalls();
    const doubles = calls.wrap({
      startVoucherExportUpload: async () => 'upload-2',
      writeVoucherExportPart: async () => {
        throw ApplicationFailure.nonRetryable('the object store refused the part');
      },
      completeVoucherExport: async () => undefined,
      failVoucherExport: async () => undefined,
    });
    expect(await env.withWorker(doubles, exportRun)).toEqual({ status: 'failed', rows: 0 });
    expect(calls.of('failVoucherExport')).toEqual([
      expect.objectContaining({ exportId: 'vex_1', uploadId: 'upload-2', error: 'the object store refused the part' }),
    ]);
    expect(calls.of('completeVoucherExport')).toHaveLength(0);
  });

  it('an import takes batches in line order until one comes back short, then completes', async () => {
    const calls = new ActivityCalls();
    let left = 2 * OFFER_IMPORT_BATCH + 3;
    const doubles = calls.wrap({
      createImportedOffers: async (a: { afterLine: number; limit: number }) => {
        const lines = Math.min(left, a.limit);
        left -= lines;
        return { lines, lastLine: a.afterLine + lines };
      },
      finishOfferImport: async () => undefined,
    });
    const run = (taskQueue: string) =>
      env.client.workflow.execute<(i: OfferImportInput) => Promise<{ status: string }>>(OFFER_IMPORT_WORKFLOW_TYPE, {
        workflowId: `offer-import-test-${taskQueue}`,
        taskQueue,
        args: [{ importId: 'oim_1', clientId: 'cli_1' }],
      });
    expect(await env.withWorker(doubles, run)).toEqual({ status: 'completed' });
    const batches = calls.of('createImportedOffers') as { afterLine: number }[];
    expect(batches.map((a) => a.afterLine)).toEqual([0, OFFER_IMPORT_BATCH, 2 * OFFER_IMPORT_BATCH]);
    expect(calls.of('finishOfferImport')).toEqual([{ importId: 'oim_1', status: 'completed' }]);
  });
});
