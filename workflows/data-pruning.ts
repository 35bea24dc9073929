import { proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';
import {
  DELIVERY_PRUNE_BATCH,
  EVENT_PRUNE_BATCH,
  FILE_PRUNE_BATCH,
  PRUNE_MAX_BATCHES,
  type DataPruningInput,
  type DataPruningResult,
} from './data-pruning-messages';
import { STEP_RETRY } from './shared/step-policy';
import { PINNED_RUN } from './shared/versioning';

const { pruneBulkFiles, pruneCallbackDeliveries, pruneFeedEvents } = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: STEP_RETRY,
});
// One statement over every event not yet placed: on a database whose feed nobody has read for long, the first run's can be large.
const { numberFeedEvents } = proxyActivities<Activities>({ startToCloseTimeout: '10 minutes', retry: STEP_RETRY });

/** Calls `step` until a batch comes back short (nothing more is due) or `maxBatches`; answers the total deleted. */
async function inBatches(step: (a: { limit: number }) => Promise<number>, limit: number, maxBatches: number): Promise<number> {
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const n = await step({ limit });
    deleted += n;
    if (n < limit) break;
  }
  return deleted;
}

/** Deletes what has outlived its retention (docs/data-retention.md), a batch at a time, within a bound per run. */
export async function dataPruningWorkflow(input: DataPruningInput): Promise<DataPruningResult> {
  const maxBatches = input.maxBatches ?? PRUNE_MAX_BATCHES;
  // Events no client has read yet get their place in the feed, and so an age: a feed nobody reads still ages out.
  await numberFeedEvents();
  // Deliveries first: an event is kept as long as a delivery of it is.
  const deliveries = await inBatches(pruneCallbackDeliveries, DELIVERY_PRUNE_BATCH, maxBatches);
  const events = await inBatches(pruneFeedEvents, EVENT_PRUNE_BATCH, maxBatches);
  // Stored import and export files (a pinned workflow: this step ships with a new worker version, docs/worker-versioning.md).
  const files = await inBatches(pruneBulkFiles, FILE_PRUNE_BATCH, maxBatches);
  return { deliveries, events, files };
}
setWorkflowOptions(PINNED_RUN, dataPruningWorkflow);
