import {
  DATA_PRUNING_WORKFLOW_TYPE,
  DELIVERY_PRUNE_BATCH,
  EVENT_PRUNE_BATCH,
  FILE_PRUNE_BATCH,
  type DataPruningInput,
  type DataPruningResult,
} from '../../workflows/data-pruning-messages';
import { ActivityCalls, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';

/*
 * The data-pruning workflow with its activities replaced by doubles (docs/data-retention.md): it
 * numbers the feed once, deletes deliveries a batch at a time until a batch comes back short, then
 * events the same way, then stored bulk files, and stops each after its bound however much is left (the next hour's run
 * takes the rest).
 */
describe('data-pruning workflow', () => {
  let env: WorkflowTestEnv;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
  });
  afterAll(() => env?.close());

  const run = (taskQueue: string, input: DataPruningInput = {}) =>
    env.client.workflow.execute<(i: DataPruningInput) => Promise<DataPruningResult>>(DATA_PRUNING_WORKFLOW_TYPE, {
      workflowId: `data-pruning-test-${taskQueue}`,
      taskQueue,
      args: [input],
    });

  /** A double that has `left` rows to delete, handing out at most `limit` a call. */
  const rowsLeft = (left: number) => async (a: { limit: number }) => {
    const n = Math.min(left, a.limit);
    left -= n;
    return n;
  };

  it('numbers the feed, then prunes deliveries, events and stored files in that order, each until a batch comes back short', async () => {
    const calls = new ActivityCalls();
    const doubles = calls.wrap({
      numberFeedEvents: async () => undefined,
      pruneCallbackDeliveries: rowsLeft(DELIVERY_PRUNE_BATCH + 3),
      pruneFeedEvents: rowsLeft(2 * EVENT_PRUNE_BATCH + 1),
      pruneBulkFiles: rowsLeft(FILE_PRUNE_BATCH),
    });
    const result = await env.withWorker(doubles, run);
    expect(result).toEqual({ deliveries: DELIVERY_PRUNE_BATCH + 3, events: 2 * EVENT_PRUNE_BATCH + 1, files: FILE_PRUNE_BATCH });
    expect(calls.calls.map((c) => c.name)).toEqual([
      'numberFeedEvents',
      'pruneCallbackDeliveries',
      'pruneCallbackDeliveries',
      'pruneFeedEvents',
      'pruneFeedEvents',
      'pruneFeedEvents',
      // A full batch may have left more: one more call finds nothing.
      'pruneBulkFiles',
      'pruneBulkFiles',
    ]);
    expect(calls.of('pruneCallbackDeliveries')).toEqual([{ limit: DELIVERY_PRUNE_BATCH }, { limit: DELIVERY_PRUNE_BATCH }]);
    expect(calls.of('pruneFeedEvents')).toEqual(Array(3).fill({ limit: EVENT_PRUNE_BATCH }));
    expect(calls.of('pruneBulkFiles')).toEqual(Array(2).fill({ limit: FILE_PRUNE_BATCH }));
  });

  it('makes one call of each kind when nothing is due', async () => {
    const calls = new ActivityCalls();
    const doubles = calls.wrap({
      numberFeedEvents: async () => undefined,
      pruneCallbackDeliveries: rowsLeft(0),
      pruneFeedEvents: rowsLeft(0),
      pruneBulkFiles: rowsLeft(0),
    });
    expect(await env.withWorker(doubles, run)).toEqual({ deliveries: 0, events: 0, files: 0 });
    expect(calls.calls.map((c) => c.name)).toEqual(['numberFeedEvents', 'pruneCallbackDeliveries', 'pruneFeedEvents', 'pruneBulkFiles']);
  });

  const full = () => ({
    numberFeedEvents: async () => undefined,
    pruneCallbackDeliveries: async (a: { limit: number }) => a.limit,
    pruneFeedEvents: async (a: { limit: number }) => a.limit,
    pruneBulkFiles: async (a: { limit: number }) => a.limit,
  });

  it('stops each kind after its bound when every batch is full', async () => {
    const calls = new ActivityCalls();
    const result = await env.withWorker(calls.wrap(full()), (taskQueue) => run(taskQueue, { maxBatches: 7 }));
    expect(calls.of('pruneCallbackDeliveries')).toHaveLength(7);
    expect(calls.of('pruneFeedEvents')).toHaveLength(7);
    expect(calls.of('pruneBulkFiles')).toHaveLength(7);
    expect(result).toEqual({ deliveries: 7 * DELIVERY_PRUNE_BATCH, events: 7 * EVENT_PRUNE_BATCH, files: 7 * FILE_PRUNE_BATCH });
  });
});
