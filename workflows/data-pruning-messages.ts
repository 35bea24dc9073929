/*
 * The data-pruning workflow's contract (docs/data-retention.md): every hour a Temporal Schedule
 * starts it; it deletes finished callback deliveries (with their attempts) past
 * CALLBACK_DELIVERY_RETENTION_DAYS, then change-feed events past the feed's window
 * (FEED_RETENTION_DAYS), then the stored files of imports and exports finished more than
 * BULK_FILES_RETENTION_DAYS ago, a batch at a time.
 */

export const DATA_PRUNING_WORKFLOW_TYPE = 'dataPruningWorkflow';

export interface DataPruningInput {
  /** Batches of each kind this run makes at most (default PRUNE_MAX_BATCHES): an operator clearing a backlog by hand may raise it. */
  maxBatches?: number;
}

export interface DataPruningResult {
  /** Callback deliveries deleted by this run (their attempts went with them). */
  deliveries: number;
  /** Change-feed events deleted by this run. */
  events: number;
  /** Imports and exports whose stored file this run deleted. */
  files: number;
}

/** Deliveries one activity call deletes at most (one short statement; their attempts, about 8 each, cascade). */
export const DELIVERY_PRUNE_BATCH = 500;

/** Events one activity call deletes at most (one short transaction). */
export const EVENT_PRUNE_BATCH = 1000;

/** Imports and exports one activity call prunes at most (one object-store DELETE each, well inside the step's minute). */
export const FILE_PRUNE_BATCH = 100;

/**
 * Batches of each kind one run makes at most (50,000 deliveries, 100,000 events an hour): a backlog
 * beyond (the first run on an old database, after an outage) goes in the next hours' runs, keeping
 * each run's history small.
 */
export const PRUNE_MAX_BATCHES = 100;
