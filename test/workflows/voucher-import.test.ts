import { ApplicationFailure } from '@temporalio/common';
import { VOUCHER_IMPORT_WORKFLOW_TYPE, type VoucherImportInput, type VoucherImportResult } from '../../workflows/voucher-import-messages';
import { ActivityCalls, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';

/*
 * The voucher-import workflow with its activities replaced: it marks the import running once, calls
 * the batch step until it says done (continuing as new on the way, without marking it running
 * again), and records the end once, failed when a step fails for good.
 */
describe('voucher-import workflow', () => {
  let env: WorkflowTestEnv;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
  });
  afterAll(() => env?.close());

  const run = (taskQueue: string) =>
    env.client.workflow.execute<(i: VoucherImportInput) => Promise<VoucherImportResult>>(VOUCHER_IMPORT_WORKFLOW_TYPE, {
      workflowId: `voucher-import-test-${taskQueue}`,
      taskQueue,
      args: [{ importId: 'vim_test', offerId: 'ofr_test' }],
    });

  const doubles = (calls: ActivityCalls, batchCalls: number, fail = false) => {
    let n = 0;
    return calls.wrap({
      startVoucherImport: async () => undefined,
      importVoucherBatches: async () => {
        n++;
        if (fail && n === 2) throw ApplicationFailure.nonRetryable('the file is gone', 'Refused');
        return { done: n >= batchCalls, rowsImported: n * 10, rowsRejected: 0 };
      },
      finishVoucherImport: async (a: { status: string }) => ({
        done: true,
        rowsImported: n * 10,
        rowsRejected: a.status === 'failed' ? 1 : 0,
      }),
    });
  };

  it('imports call by call until done, and records the end once', async () => {
    const calls = new ActivityCalls();
    const result = await env.withWorker(doubles(calls, 3), run);
    expect(result).toEqual({ status: 'completed', done: true, rowsImported: 30, rowsRejected: 0 });
    expect(calls.of('startVoucherImport')).toHaveLength(1);
    expect(calls.of('importVoucherBatches')).toHaveLength(3);
    expect(calls.of('finishVoucherImport')).toEqual([{ importId: 'vim_test', status: 'completed' }]);
  });

  it('continues as new past 20 calls, marking it running only once', async () => {
    const calls = new ActivityCalls();
    const result = await env.withWorker(doubles(calls, 45), run);
    expect(result.status).toBe('completed');
    expect(calls.of('startVoucherImport')).toHaveLength(1);
    expect(calls.of('importVoucherBatches')).toHaveLength(45);
    expect(calls.of('finishVoucherImport')).toHaveLength(1);
  });

  it('fails the import, once, when a step fails for good', async () => {
    const calls = new ActivityCalls();
    const result = await env.withWorker(doubles(calls, 5, true), run);
    expect(result.status).toBe('failed');
    expect(calls.of('finishVoucherImport')).toEqual([{ importId: 'vim_test', status: 'failed', message: 'the file is gone' }]);
  });
});
