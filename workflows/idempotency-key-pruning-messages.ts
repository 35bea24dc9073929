/*
 * The idempotency-key pruning workflow's contract (docs/decisions/0061-idempotency-keys.md): every
 * hour a Temporal Schedule starts it; it deletes the Idempotency-Keys past their replay window.
 */

export const IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE = 'idempotencyKeyPruningWorkflow';

// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no input yet; an object leaves room for one
export interface IdempotencyKeyPruningInput {}

export interface IdempotencyKeyPruningResult {
  /** Keys deleted by this run. */
  deleted: number;
}

/** What the activity deletes at most per call (one short statement). */
export const IDEMPOTENCY_PRUNE_BATCH = 5000;

/** Batches one run deletes at most (250,000 keys); a backlog beyond (after an outage) goes in the next hour's run, keeping history small. */
export const IDEMPOTENCY_PRUNE_MAX_BATCHES = 50;
