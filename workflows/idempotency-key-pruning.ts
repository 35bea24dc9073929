import { proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  IDEMPOTENCY_PRUNE_BATCH,
  IDEMPOTENCY_PRUNE_MAX_BATCHES,
  type IdempotencyKeyPruningInput,
  type IdempotencyKeyPruningResult,
} from './idempotency-key-pruning-messages';
import { STEP_RETRY } from './shared/step-policy';
import { PINNED_RUN } from './shared/versioning';

const { pruneIdempotencyKeys } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: STEP_RETRY });

/** Deletes expired Idempotency-Keys a batch at a time until none is left (or IDEMPOTENCY_PRUNE_MAX_BATCHES). */
export async function idempotencyKeyPruningWorkflow(_input: IdempotencyKeyPruningInput): Promise<IdempotencyKeyPruningResult> {
  let deleted = 0;
  for (let batch = 0; batch < IDEMPOTENCY_PRUNE_MAX_BATCHES; batch++) {
    const n = await pruneIdempotencyKeys({ limit: IDEMPOTENCY_PRUNE_BATCH });
    deleted += n;
    if (n < IDEMPOTENCY_PRUNE_BATCH) break;
  }
  return { deleted };
}
setWorkflowOptions(PINNED_RUN, idempotencyKeyPruningWorkflow);
