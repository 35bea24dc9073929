import path from 'node:path';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { ensureGoBinary, TEMPORAL_CLI } from '../../infra/local/go-binaries';
import { workflowBundle } from '../../worker/workflow-bundle';
import { OFFER_SEARCH_ATTRIBUTES } from '../../workflows/shared/search-attributes';

/**
 * The workflows lane's one Temporal dev server (the project's own CLI binary, as npm start finds
 * it; nothing is downloaded), in memory, and the workflows' cached bundle: started once for every
 * file of the lane, which connect to it (test/setup/workflow-env.ts) through the environment.
 * A server per file cost seconds each.
 */
export default async function workflowsGlobalSetup(): Promise<void> {
  // Workers' state changes are INFO: keep the test output to what went wrong.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const [executable, bundle] = await Promise.all([
    ensureGoBinary(TEMPORAL_CLI),
    workflowBundle(path.join(__dirname, '..', '..', 'workflows', 'index.ts')),
  ]);
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: executable },
      ip: '127.0.0.1',
      searchAttributes: OFFER_SEARCH_ATTRIBUTES,
      log: { format: 'pretty', level: 'error' },
      // A version that stops taking new runs reports `drained` once its pinned runs have ended, but
      // the server looks only every 3 minutes (after a 3-minute grace for visibility): every second
      // here, so test/workflows/worker-versioning.test.ts sees its old version drain.
      // Every test's worker is a version of a deployment of its own (test/setup/workflow-env.ts):
      // more than the 100 deployments a namespace may have by default.
      extraArgs: [
        '--dynamic-config-value',
        'matching.maxDeployments=10000',
        '--dynamic-config-value',
        'matching.wv.VersionDrainageStatusRefreshInterval="1s"',
        '--dynamic-config-value',
        'matching.wv.VersionDrainageStatusVisibilityGracePeriod="1s"',
      ],
    },
  });
  // jest runs the teardown in this same process: it finds the server here.
  (globalThis as { workflowTestServer?: TestWorkflowEnvironment }).workflowTestServer = env;
  Object.assign(process.env, {
    WORKFLOW_TEST_ADDRESS: env.address,
    WORKFLOW_TEST_NAMESPACE: env.namespace ?? 'default',
    WORKFLOW_TEST_BUNDLE_PATH: bundle.path,
  });
}
