import { isGrpcServiceError } from '@temporalio/client';
import { Failure } from '../domain/failures';
import { waitFor } from '../platform/wait-for';
import {
  deploymentNameFor,
  describeDeployment,
  describeVersion,
  setCurrentVersion,
  setRampingVersion,
  versionLabel,
  type DeploymentRouting,
  type DeploymentVersion,
  type VersionDescription,
} from '../platform/worker-deployments';
import type { ServiceDeps } from './deps';

/*
 * A release of workflow code, rolled out as Temporal's Worker Versioning has it (docs/worker-versioning.md):
 * start the new version's workers beside the old ones, ramp a share of new runs to it, make it
 * current, then stop the old version's workers once the runs pinned to it have drained. The
 * operator's commands (`admin deploy …`) call these; the deployment is the one named after the
 * configured task queue.
 */

type Deps = Pick<ServiceDeps, 'temporal' | 'config'>;

/** The deployment of the configured task queue, as an operator reads it. */
export interface DeploymentStatus {
  deployment: string;
  current: string | null;
  ramping: { build_id: string; percent: number } | null;
  versions: Array<{ build_id: string; status: string; drainage: string | null }>;
}

/** One version's drainage: `drained` once no open run is pinned to it, so its workers may stop. */
export interface VersionDrainage {
  deployment: string;
  build_id: string;
  status: string;
  drainage: string | null;
  /** When the server last counted the version's open pinned runs (it re-counts every few minutes). */
  checked_at: string | null;
  drained: boolean;
}

const GRPC_FAILED_PRECONDITION = 9;

/**
 * Temporal refuses a routing change whose version has not polled every task queue of the current
 * one yet (its workers are still starting): said as a conflict the operator can retry.
 */
async function routingChange<T>(version: DeploymentVersion, change: () => Promise<T>): Promise<T> {
  try {
    return await change();
  } catch (err) {
    if (!isGrpcServiceError(err) || err.code !== GRPC_FAILED_PRECONDITION) throw err;
    throw new Failure('conflict', `Temporal refused to route to ${versionLabel(version)}: ${err.details}; try again once its workers poll`);
  }
}

const deploymentOf = (deps: Deps) => deploymentNameFor(deps.config.TEMPORAL_TASK_QUEUE);

async function routingOf(deps: Deps): Promise<DeploymentRouting> {
  const routing = await describeDeployment(deps.temporal, deploymentOf(deps));
  if (!routing) throw new Failure('not_found', `no worker of deployment ${deploymentOf(deps)} has polled Temporal yet`);
  return routing;
}

/** Refuses a build id no worker has polled with: routing runs to it would leave them waiting. */
function requirePolled(routing: DeploymentRouting, version: DeploymentVersion): void {
  if (!routing.versions.some((v) => v.buildId === version.buildId)) {
    throw new Failure(
      'not_found',
      `no worker of version ${versionLabel(version)} has polled Temporal: start its workers first (known: ${
        routing.versions.map((v) => v.buildId).join(', ') || 'none'
      })`,
      { field: 'build_id' },
    );
  }
}

/** The deployment's current and ramping versions and every version it knows. */
export async function deploymentStatus(deps: Deps): Promise<DeploymentStatus> {
  const routing = await routingOf(deps);
  return {
    deployment: deploymentOf(deps),
    current: routing.current ?? null,
    ramping: routing.ramping ? { build_id: routing.ramping.buildId, percent: routing.ramping.percent } : null,
    versions: routing.versions.map((v) => ({ build_id: v.buildId, status: v.status, drainage: v.drainage ?? null })),
  };
}

/**
 * Sends `percent` (1–100) of new runs, and of the auto-upgrade runs' next tasks, to `buildId`; the
 * current version keeps the rest. `percent` 0 stops the ramp (every run to the current version).
 */
export async function rampVersion(deps: Deps, ramp: { buildId: string; percent: number }): Promise<DeploymentStatus> {
  if (!Number.isInteger(ramp.percent) || ramp.percent < 0 || ramp.percent > 100) {
    throw new Failure('invalid_field', 'percent must be a whole number from 0 to 100', { field: 'percent' });
  }
  const routing = await routingOf(deps);
  const version = { deploymentName: deploymentOf(deps), buildId: ramp.buildId };
  if (ramp.percent === 0) {
    await setRampingVersion(deps.temporal, version.deploymentName, { percent: 0 }, { conflictToken: routing.conflictToken });
    return deploymentStatus(deps);
  }
  requirePolled(routing, version);
  if (routing.current === ramp.buildId) {
    throw new Failure('invalid_state_transition', `${versionLabel(version)} is already the current version`, { field: 'build_id' });
  }
  await routingChange(version, () =>
    setRampingVersion(deps.temporal, version.deploymentName, ramp, { conflictToken: routing.conflictToken }),
  );
  return deploymentStatus(deps);
}

/**
 * Makes `buildId` the current version (a ramp of it ends): every new run goes to it, and so does
 * the next task of every auto-upgrade run; runs pinned to the version before stay there until they
 * end (`versionDrainage`). Answers the status with the version that was current before.
 */
export async function promoteVersion(deps: Deps, buildId: string): Promise<DeploymentStatus & { previous: string | null }> {
  const routing = await routingOf(deps);
  const version = { deploymentName: deploymentOf(deps), buildId };
  requirePolled(routing, version);
  if (routing.current === buildId) return { ...(await deploymentStatus(deps)), previous: buildId };
  const { previous } = await routingChange(version, () =>
    setCurrentVersion(deps.temporal, version, { conflictToken: routing.conflictToken }),
  );
  return { ...(await deploymentStatus(deps)), previous: previous ?? null };
}

/**
 * Whether a version that no longer takes new runs still has runs pinned to it. Temporal re-counts
 * a draining version's open pinned runs periodically, so `drained` can lag the last run's end by
 * that interval (matching.wv.VersionDrainageStatusRefreshInterval, 3 minutes by default).
 */
export async function versionDrainage(deps: Deps, buildId: string): Promise<VersionDrainage> {
  const version = { deploymentName: deploymentOf(deps), buildId };
  const described: VersionDescription | undefined = await describeVersion(deps.temporal, version);
  if (!described) throw new Failure('not_found', `Temporal does not know version ${versionLabel(version)}`, { field: 'build_id' });
  return {
    deployment: version.deploymentName,
    build_id: buildId,
    status: described.status,
    drainage: described.drainage ?? null,
    checked_at: described.drainageCheckedAt ?? null,
    drained: described.status === 'drained' || described.drainage === 'drained',
  };
}

/**
 * Asks `versionDrainage` until the version is drained, telling `onCheck` each answer; refuses with
 * `conflict` when `timeoutMs` passes first. No event says drained (Temporal re-counts every few minutes): the one wait.
 */
export async function waitUntilDrained(
  deps: Deps,
  buildId: string,
  opts: { timeoutMs: number; onCheck?: (d: VersionDrainage) => void },
): Promise<VersionDrainage> {
  let last: VersionDrainage | undefined;
  const stillPinned = () =>
    new Failure('conflict', `version ${buildId} is still ${last?.drainage ?? last?.status} after ${opts.timeoutMs / 1000} s`);
  const drained = async () => {
    last = await versionDrainage(deps, buildId);
    opts.onCheck?.(last);
    return last.drained && last;
  };
  return waitFor(`version ${buildId} to drain`, drained, { deadlineMs: opts.timeoutMs, maxMs: 10_000, deadlineError: stillPinned });
}
