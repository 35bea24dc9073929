import type { TestWorkflowEnvironment } from '@temporalio/testing';

/** Stops the workflows lane's Temporal dev server (test/setup/workflows-global-setup.ts). */
export default async function workflowsGlobalTeardown(): Promise<void> {
  await (globalThis as { workflowTestServer?: TestWorkflowEnvironment }).workflowTestServer?.teardown();
}
