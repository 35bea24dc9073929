import fs from 'node:fs';
import { runWorker } from '../../main';

/**
 * A worker process for the crash test: every order stops inside its placing transaction, after
 * the stock is taken and before the vouchers are written, and says so by writing `argv[2]`.
 * The test then kills this process with SIGKILL.
 */
const marker = process.argv[2];
runWorker({
  workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH,
  extra: {
    orderHooks: {
      afterStockTaken: async (orderId) => {
        fs.writeFileSync(marker, orderId);
        await new Promise(() => undefined); // until killed
      },
    },
  },
}).catch((err) => {
  console.error(err);
  process.exit(1);
});
