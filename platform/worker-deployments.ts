import { isGrpcServiceError, type Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { waitFor } from './wait-for';

/*
 * Temporal's Worker Deployments (Worker Versioning), reached through the WorkflowService: the TS
 * client has no typed wrapper for them yet. Each worker process runs one version of a deployment
 * (deployment name + build id); the deployment's routing says which version takes new runs (the
 * current one) and which takes a share of them (the ramping one). docs/worker-versioning.md.
 */

/** A version of a worker deployment: the deployment's name and a build id. */
export interface DeploymentVersion {
  deploymentName: string;
  buildId: string;
}

/** How a deployment routes work now, and the versions it knows. */
export interface DeploymentRouting {
  /** The current version's build id; undefined while runs still go to unversioned workers. */
  current?: string;
  /** The ramping version's build id and its share of new runs (0–100), when one ramps. */
  ramping?: { buildId: string; percent: number };
  versions: Array<{ buildId: string; status: VersionStatus; drainage?: Drainage }>;
  /** Hands a later change the state it was decided on: a concurrent change makes it fail instead of being overwritten. */
  conflictToken: Uint8Array;
}

/** A version's place in the routing (Temporal's WorkerDeploymentVersionStatus, lower-cased). */
export type VersionStatus = 'inactive' | 'current' | 'ramping' | 'draining' | 'drained' | 'created' | 'unspecified';

/** Whether runs pinned to a version that takes no new runs are still open: `drained` once none are. */
export type Drainage = 'draining' | 'drained';

/** One version as Temporal describes it. */
export interface VersionDescription extends DeploymentVersion {
  status: VersionStatus;
  /** Set once the version no longer takes new runs; the server re-checks it periodically (matching.wv.VersionDrainageStatusRefreshInterval). */
  drainage?: Drainage;
  drainageCheckedAt?: string;
  /** The task queues this version's workers have polled, each as `<name>/<type>` (`workflow`, `activity`, `nexus`). */
  taskQueues: string[];
}

const GRPC_NOT_FOUND = 5;
/** How long a version's "not found" is asked again before it is believed. */
const NOT_FOUND_FOR_MS = 1_500;
const enums = temporal.api.enums.v1;

/**
 * The deployment name of a task queue's workers: the task queue's own name, with the two
 * characters a deployment name may not hold ('.' and ':', which Temporal uses to join a name and a
 * build id) replaced by '-'.
 */
export function deploymentNameFor(taskQueue: string): string {
  return taskQueue.replace(/[.:]/g, '-');
}

/** `name:buildId`, as the Temporal CLI and UI print a version. */
export function versionLabel(v: DeploymentVersion): string {
  return `${v.deploymentName}:${v.buildId}`;
}

function versionStatus(s: temporal.api.enums.v1.WorkerDeploymentVersionStatus | null | undefined): VersionStatus {
  const name = enums.WorkerDeploymentVersionStatus[s ?? 0] ?? 'WORKER_DEPLOYMENT_VERSION_STATUS_UNSPECIFIED';
  return name.replace('WORKER_DEPLOYMENT_VERSION_STATUS_', '').toLowerCase() as VersionStatus;
}

function drainage(s: temporal.api.enums.v1.VersionDrainageStatus | null | undefined): Drainage | undefined {
  if (s === enums.VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINING) return 'draining';
  if (s === enums.VersionDrainageStatus.VERSION_DRAINAGE_STATUS_DRAINED) return 'drained';
  return undefined;
}

function taskQueueType(t: temporal.api.enums.v1.TaskQueueType | null | undefined): string {
  return (enums.TaskQueueType[t ?? 0] ?? 'TASK_QUEUE_TYPE_UNSPECIFIED').replace('TASK_QUEUE_TYPE_', '').toLowerCase();
}

const iso = (t: { seconds?: unknown } | null | undefined) => (t?.seconds ? new Date(Number(t.seconds) * 1000).toISOString() : undefined);

/** The deployment's routing, or undefined when no worker of it has polled yet (Temporal creates a deployment at its first poll). */
export async function describeDeployment(client: Client, deploymentName: string): Promise<DeploymentRouting | undefined> {
  try {
    const res = await client.workflowService.describeWorkerDeployment({ namespace: client.options.namespace, deploymentName });
    const info = res.workerDeploymentInfo;
    const routing = info?.routingConfig;
    return {
      current: routing?.currentDeploymentVersion?.buildId || undefined,
      ramping: routing?.rampingDeploymentVersion?.buildId
        ? { buildId: routing.rampingDeploymentVersion.buildId, percent: routing.rampingVersionPercentage ?? 0 }
        : undefined,
      versions: (info?.versionSummaries ?? []).map((v) => ({
        buildId: v.deploymentVersion?.buildId ?? '',
        status: versionStatus(v.status),
        drainage: drainage(v.drainageInfo?.status ?? v.drainageStatus),
      })),
      conflictToken: res.conflictToken,
    };
  } catch (err) {
    if (isGrpcServiceError(err) && err.code === GRPC_NOT_FOUND) return undefined;
    throw err;
  }
}

/**
 * One version: its status, drainage and task queues; undefined when Temporal does not know it.
 * Temporal answers from the version's own workflow, which is briefly closed each time it continues
 * as new (a routing change): a "not found" is asked again a few times before it is believed.
 */
export async function describeVersion(client: Client, version: DeploymentVersion): Promise<VersionDescription | undefined> {
  const believed = new Error('not found');
  const describe = async () => {
    try {
      const res = await client.workflowService.describeWorkerDeploymentVersion({
        namespace: client.options.namespace,
        deploymentVersion: version,
      });
      const info = res.workerDeploymentVersionInfo;
      return {
        ...version,
        status: versionStatus(info?.status),
        drainage: drainage(info?.drainageInfo?.status),
        drainageCheckedAt: iso(info?.drainageInfo?.lastCheckedTime),
        taskQueues: (info?.taskQueueInfos ?? []).map((q) => `${q.name}/${taskQueueType(q.type)}`),
      };
    } catch (err) {
      if (!isGrpcServiceError(err) || err.code !== GRPC_NOT_FOUND) throw err;
    }
  };
  // No event says the version's workflow is back: asked again through the one wait.
  const found = waitFor(`version ${versionLabel(version)}`, describe, { deadlineMs: NOT_FOUND_FOR_MS, deadlineError: () => believed });
  return found.catch((err: unknown) => (err === believed ? undefined : Promise.reject(err)));
}

/**
 * Makes `buildId` the deployment's current version: new runs, and the next task of every
 * auto-upgrade run, go to its workers. Refused when `conflictToken` is given and the routing has
 * changed since it was read. Answers the version that was current before.
 */
export async function setCurrentVersion(
  client: Client,
  version: DeploymentVersion,
  opts: { conflictToken?: Uint8Array; identity?: string } = {},
): Promise<{ previous?: string }> {
  const res = await client.workflowService.setWorkerDeploymentCurrentVersion({
    namespace: client.options.namespace,
    deploymentName: version.deploymentName,
    buildId: version.buildId,
    conflictToken: opts.conflictToken,
    identity: opts.identity ?? client.options.identity,
  });
  return { previous: res.previousDeploymentVersion?.buildId || undefined };
}

/**
 * Sends `percent` of new runs (and of the auto-upgrade runs' next tasks, by workflow id) to
 * `buildId` while the current version takes the rest; `buildId` undefined stops the ramp.
 */
export async function setRampingVersion(
  client: Client,
  deploymentName: string,
  ramp: { buildId?: string; percent: number },
  opts: { conflictToken?: Uint8Array; identity?: string } = {},
): Promise<void> {
  await client.workflowService.setWorkerDeploymentRampingVersion({
    namespace: client.options.namespace,
    deploymentName,
    buildId: ramp.buildId ?? '',
    percentage: ramp.buildId ? ramp.percent : 0,
    conflictToken: opts.conflictToken,
    identity: opts.identity ?? client.options.identity,
  });
}
