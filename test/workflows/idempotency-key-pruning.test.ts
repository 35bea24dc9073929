import {
  IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE,
  IDEMPOTENCY_PRUNE_BATCH,
  IDEMPOTENCY_PRUNE_MAX_BATCHES,
  type IdempotencyKeyPruningInput,
  type IdempotencyKeyPruningResult,
} from '../../workflows/idempotency-key-pruning-messages';
import { ActivityCalls, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';

/*
 * The pruning workflow with its activity replaced by a double: it deletes a batch at a time until
 * a batch comes back short, and stops after its bound however much is left (the next hour's run
 * takes the rest).
 */
describe('idempotency-key pruning workflow', () => {
  let env: WorkflowTestEnv;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
  });
  afterAll(() => env?.close());

  const run = (taskQueue: string) =>
    env.client.workflow.execute<(i: IdempotencyKeyPruningInput) => Promise<IdempotencyKeyPruningResult>>(
      IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE,
      { workflowId: `idempotency-key-pruning-test-${taskQueue}`, taskQueue, args: [{}] },
    );

  it('deletes batches until one comes back short', async () => {
    const calls = new ActivityCalls();
    let left = 2 * IDEMPOTENCY_PRUNE_BATCH + 7;
    const doubles = calls.wrap({
      pruneIdempotencyKeys: async (a: { limit: number }) => {
        const n = Math.min(left, a.limit);
        left -= n;
        return n;
      },
    });
    const result = await env.withWorker(doubles, run);
    expect(result).toEqual({ deleted: 2 * IDEMPOTENCY_PRUNE_BATCH + 7 });
    expect(calls.of('pruneIdempotencyKeys')).toHaveLength(3);
  });

  it('stops after its bound when every batch is full', async () => {
    const calls = new ActivityCalls();
    const doubles = calls.wrap({ pruneIdempotencyKeys: async (a: { limit: number }) => a.limit });
    const result = await env.withWorker(doubles, run);
    expect(calls.of('pruneIdempotencyKeys')).toHaveLength(IDEMPOTENCY_PRUNE_MAX_BATCHES);
    expect(result).toEqual({ deleted: IDEMPOTENCY_PRUNE_MAX_BATCHES * IDEMPOTENCY_PRUNE_BATCH });
  });
});
