import crypto from 'node:crypto';
import type { Client } from '@temporalio/client';
import { version as packageVersion } from '../package.json';
import type { Config } from '../platform/config';
import type { Logger } from '../platform/logger';
import { waitFor } from '../platform/wait-for';
import {
  describeDeployment,
  describeVersion,
  setCurrentVersion,
  versionLabel,
  type DeploymentVersion,
} from '../platform/worker-deployments';

/*
 * Worker Versioning (docs/worker-versioning.md): every worker process runs one version of the
 * Worker Deployment named after its task queue. Runs are routed by version, so a worker never gets
 * a pinned run of another version's code, and a release that changes workflow code is a new
 * version an operator ramps and promotes (`admin deploy`, services/worker-deployments.ts).
 */

/**
 * The default build id: the package's version and the first 12 hex digits of the workflow
 * bundle's SHA-256. It changes exactly when the code the workflows run changes (their files, what
 * they import, the SDK), so a release that changes only activities or routes keeps its version and
 * its workers simply replace the old ones.
 */
export function buildIdOfBundle(bundleCode: string | Buffer): string {
  const hash = crypto.createHash('sha256').update(bundleCode).digest('hex').slice(0, 12);
  return `${packageVersion}-${hash}`;
}

/** What a starting worker does about the deployment's current version (WORKER_SET_CURRENT). */
export type SetCurrentPolicy = Config['WORKER_SET_CURRENT'];

/** How long a starting worker waits for Temporal to register its version, and then to make it current. */
const WITHIN_MS = 30_000;
const LOOK_EVERY_MS = 200;

/**
 * Run once the worker polls: waits until Temporal knows its version (so `admin deploy status`
 * lists it once the worker runs), then makes it the deployment's current one when the policy says
 * so. `if-none` does it only while the deployment has no current version (a fresh cluster or test
 * task queue, where runs would otherwise wait for an unversioned worker that never comes); another
 * current version is left to the operator, with a warning. Concurrent starts are safe: the change
 * carries the routing's conflict token, and a loser finds the version current on its next look.
 */
export async function applySetCurrentPolicy(
  client: Client,
  version: DeploymentVersion,
  taskQueue: string,
  policy: SetCurrentPolicy,
  log: Logger,
): Promise<'current' | 'not-current'> {
  // Temporal registers the version on each of its queues' first poll (workflow, activity) and routes to it
  // only then; nothing announces it, nor a routing change settling: both asked again through the one wait.
  const registered = async () => {
    const queues = (await describeVersion(client, version))?.taskQueues ?? [];
    return queues.includes(`${taskQueue}/workflow`) && queues.includes(`${taskQueue}/activity`);
  };
  await waitFor(`Temporal to register ${versionLabel(version)} (does it support Worker Deployments?)`, registered, {
    deadlineMs: WITHIN_MS,
    // Registration takes a few hundred ms; looks at most this far apart do not double a start's wait.
    maxMs: LOOK_EVERY_MS,
  });
  let lastError: unknown;
  return waitFor(
    `worker version ${versionLabel(version)} to become current`,
    async () => {
      const routing = await describeDeployment(client, version.deploymentName);
      if (routing?.current === version.buildId) return 'current';
      if (policy === 'never' || (policy === 'if-none' && routing?.current)) {
        log.warn(
          { version: versionLabel(version), current: routing?.current ?? null, ramping: routing?.ramping ?? null },
          'this worker version is not the current one: it takes only runs pinned or ramped to it (promote it with `admin deploy promote`)',
        );
        return 'not-current';
      }
      try {
        const { previous } = await setCurrentVersion(client, version, { conflictToken: routing?.conflictToken });
        log.info({ version: versionLabel(version), previous: previous ?? null }, 'worker version made current');
        return 'current';
      } catch (err) {
        // A concurrent change (the conflict token) or the server still settling: look again, a bounded time.
        lastError = err;
      }
    },
    {
      deadlineMs: WITHIN_MS,
      maxMs: LOOK_EVERY_MS,
      deadlineError: () =>
        new Error(`worker version ${versionLabel(version)} not made current: ${String(lastError)}`, { cause: lastError }),
    },
  );
}
