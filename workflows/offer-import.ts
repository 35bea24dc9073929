import { continueAsNew, isCancellation, proxyActivities, setWorkflowOptions } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { OFFER_IMPORT_BATCH, OFFER_IMPORT_BATCHES_PER_RUN, type OfferImportInput, type OfferImportResult } from './offer-import-messages';
import { STEP_RETRY } from './shared/step-policy';
import { PINNED_RUN } from './shared/versioning';

const { finishOfferImport } = proxyActivities<Activities>({ startToCloseTimeout: '1 minute', retry: STEP_RETRY });
// A batch starts up to OFFER_IMPORT_BATCH review workflows; it heartbeats each line.
const { createImportedOffers } = proxyActivities<Activities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '1 minute',
  retry: STEP_RETRY,
});

/**
 * Creates an import's offers a batch at a time in line order; each line's offer has an id derived
 * from the import and the line, so a retried batch creates nothing twice. Ends the import
 * completed, or failed when a step failed for good (the lines done stay done).
 */
export async function offerImportWorkflow(input: OfferImportInput): Promise<OfferImportResult> {
  let afterLine = input.afterLine ?? 0;
  try {
    for (let n = 0; n < OFFER_IMPORT_BATCHES_PER_RUN; n++) {
      const done = await createImportedOffers({ importId: input.importId, clientId: input.clientId, afterLine, limit: OFFER_IMPORT_BATCH });
      if (done.lines < OFFER_IMPORT_BATCH) {
        await finishOfferImport({ importId: input.importId, status: 'completed' });
        return { status: 'completed' };
      }
      afterLine = done.lastLine;
    }
  } catch (err) {
    if (isCancellation(err)) throw err;
    await finishOfferImport({ importId: input.importId, status: 'failed' });
    return { status: 'failed' };
  }
  return continueAsNew<typeof offerImportWorkflow>({ ...input, afterLine });
}

// An import of up to 10,000 offers takes minutes, and its continued runs stay on the version it started on: pinned, no patches.
setWorkflowOptions(PINNED_RUN, offerImportWorkflow);
