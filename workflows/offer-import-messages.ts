/*
 * The offer import workflow's contract (docs/bulk-offers-and-exports.md): the API has validated
 * every line and stored it; the workflow creates the valid lines' offers a batch at a time, in
 * line order, each exactly as POST /offers does, then ends the import (offer_import.completed).
 */

export const OFFER_IMPORT_WORKFLOW_TYPE = 'offerImportWorkflow';

export interface OfferImportInput {
  importId: string;
  clientId: string;
  /** The last line done, set by a run that continued as new. */
  afterLine?: number;
}

export interface OfferImportResult {
  status: 'completed' | 'failed';
}

/** Lines one step creates at most: a step stays well inside its timeout, progress shows per line. */
export const OFFER_IMPORT_BATCH = 50;

/** Steps one run takes before continuing as new (10,000 lines need 200). */
export const OFFER_IMPORT_BATCHES_PER_RUN = 100;
