import fs from 'node:fs';
import { runWorker } from '../../main';
import { loadConfig } from '../../platform/config';

/**
 * A worker process for the import crash test: the third batch of every import stops inside its
 * transaction, its rows written and not committed, and says so by writing `argv[2]`. The test then
 * kills this process with SIGKILL. Batches are of 2000 rows, as in the test's own worker.
 */
const marker = process.argv[2];
runWorker({
  workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH,
  extra: {
    config: { ...loadConfig(), VOUCHER_IMPORT_BATCH_ROWS: 2000 },
    importHooks: {
      batchWritten: async (importId, batch) => {
        if (batch < 2) return;
        fs.writeFileSync(marker, importId);
        await new Promise(() => undefined); // until killed
      },
    },
  },
}).catch((err) => {
  console.error(err);
  process.exit(1);
});
