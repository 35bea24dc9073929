import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { stackEnv, startStackProcess } from '../../infra/stack-process';

/**
 * Brings up the real stack for the suite exactly as `npm start` does, on its own ports and in a
 * temporary DATA_DIR, without API and worker: tests build those themselves so they can restart
 * them. The endpoints reach the tests through the environment.
 */
export default async function globalSetup(): Promise<void> {
  const stack = await startStackProcess({
    prefix: 'offer-marketplace-test-',
    onProgress: (line) => /building|built|failed/.test(line) && process.stderr.write(`${line}\n`),
  });
  Object.assign(process.env, stackEnv(stack), { TEST_STACK_PID: String(stack.pid) });
  // One workflow bundle for the whole suite: bundling per test file would cost seconds each.
  const { code } = await bundleWorkflowCode({
    workflowsPath: path.join(__dirname, '..', '..', 'workflows', 'index.ts'),
    logger: quietLogger,
  });
  const bundlePath = path.join(stack.dataDir, 'workflow-bundle.js');
  fs.writeFileSync(bundlePath, code);
  process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
}

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: (m: string) => console.error(m) };
