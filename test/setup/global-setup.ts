import fs from 'node:fs';
import path from 'node:path';
import { ensureGoBinary, MINIO_SERVER } from '../../infra/local/go-binaries';
import { stackEnv, startStackProcess } from '../../infra/local/stack-process';
import { workflowBundle } from '../../worker/workflow-bundle';

/**
 * Brings up the real stack for the suite exactly as `npm start` does, on its own ports and in a
 * temporary DATA_DIR, without API and worker: tests build those themselves so they can restart
 * them. The endpoints reach the tests through the environment.
 */
export default async function globalSetup(): Promise<void> {
  // The attachment tests also run against MinIO (the other EMBEDDED_S3 server): on a fresh machine
  // its binary is built here, beside the stack's, rather than inside a test's two-minute hook.
  const [stack] = await Promise.all([
    startStackProcess({
      prefix: 'offer-marketplace-test-',
      onProgress: (line) => /building|built|failed/.test(line) && process.stderr.write(`${line}\n`),
    }),
    ensureGoBinary(MINIO_SERVER),
  ]);
  Object.assign(process.env, stackEnv(stack), { TEST_STACK_PID: String(stack.pid) });
  // One workflow bundle for the whole suite: bundling per test file would cost seconds each. It is
  // the one `npm start` caches (rebuilt only when a workflow's sources changed), copied so that a
  // start that rebuilds it meanwhile does not change it under the suite.
  const bundle = await workflowBundle(path.join(__dirname, '..', '..', 'workflows', 'index.ts'));
  const bundlePath = path.join(stack.dataDir, 'workflow-bundle.js');
  fs.copyFileSync(bundle.path, bundlePath);
  process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
}
