import fs from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger, NativeConnection, Worker, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { createActivities } from '../activities';
import { activityFailureInterceptors } from './activity-failures';
import type { ActivityDeps } from '../activities/deps';
import { freePort } from '../platform/free-port';
import { setWorkerMetricsUrl } from '../platform/metrics';
import type { Endpoints } from '../platform/endpoints';
import type { Tracing } from '../platform/tracing';
import { temporalConnectionOptions } from '../platform/temporal-connection';
import { CALLBACK_DISPATCHER_WORKFLOW_TYPE, type CallbackDispatcherWorkflow } from '../workflows/callback-dispatcher-messages';
import {
  callbackDispatcherWorkflowId,
  dataPruningScheduledWorkflowId,
  dataPruningScheduleId,
  idempotencyKeyPruningScheduledWorkflowId,
  idempotencyKeyPruningScheduleId,
  monthlyStatementsScheduledWorkflowId,
  monthlyStatementsScheduleId,
} from '../workflows/shared/ids';
import { DATA_PRUNING_WORKFLOW_TYPE, type DataPruningInput } from '../workflows/data-pruning-messages';
import { IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE, type IdempotencyKeyPruningInput } from '../workflows/idempotency-key-pruning-messages';
import { MONTHLY_STATEMENTS_WORKFLOW_TYPE, type MonthlyStatementsInput } from '../workflows/monthly-statements-messages';
import { ScheduleAlreadyRunning, ScheduleOverlapPolicy, type ScheduleOptions } from '@temporalio/client';
import { applySetCurrentPolicy, buildIdOfBundle } from './versioning';
import { workflowBundle } from './workflow-bundle';
import { deploymentNameFor, type DeploymentVersion } from '../platform/worker-deployments';

let runtimeInstalled = false;

/** The SDK logger's level for each pino level that lets some of its lines through (error, fatal, silent: ERROR). */
const SDK_LOG_LEVEL: Record<string, 'TRACE' | 'DEBUG' | 'INFO' | 'WARN'> = { trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN' };

/**
 * Once per process: routes the Temporal Core SDK's logs through our logger, and has it serve its
 * worker metrics on a free loopback port that /metrics appends.
 */
async function installRuntime(deps: ActivityDeps) {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const metricsPort = await freePort();
  setWorkerMetricsUrl(`http://127.0.0.1:${metricsPort}/metrics`);
  const log = deps.log.child({ component: 'temporal-worker' });
  Runtime.install({
    // At pino's own threshold, so the SDK drops what pino would drop before doing any work for it.
    logger: new DefaultLogger(SDK_LOG_LEVEL[log.level] ?? 'ERROR', ({ level, message, meta }) =>
      log[level.toLowerCase() as 'trace' | 'debug' | 'info' | 'warn' | 'error'](meta ?? {}, message),
    ),
    telemetryOptions: {
      logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} },
      metrics: { prometheus: { bindAddress: `127.0.0.1:${metricsPort}`, countersTotalSuffix: true } },
    },
  });
}

/*
 * Polling and caching (issue 11). Short workflows (a cancellation, a reservation's first task)
 * come from the task queue's normal (non-sticky) queue: the SDK's default gives that queue 2 of 10
 * pollers, and requests waited for one. The slots stay above the concurrency we serve (the
 * benchmark's 32 clients), and the cache is bounded: it holds the long-lived intake runs, reviews,
 * reservations and callback lanes, whose evicted histories are replayed on their next task.
 */
const WORKER_TUNING = {
  maxConcurrentWorkflowTaskExecutions: 100,
  maxConcurrentWorkflowTaskPolls: 16,
  // Three quarters of the pollers on the normal queue, the rest on this worker's sticky queue.
  nonStickyToStickyPollRatio: 0.75,
  maxCachedWorkflows: 500,
} as const;

/** The module whose exported functions are the workflows (bundled with webpack for the worker's sandbox). */
export const WORKFLOWS_PATH = path.join(__dirname, '..', 'workflows', 'index.ts');

export interface RunningWorker {
  worker: Worker;
  /** The Worker Deployment version it runs as (worker/versioning.ts). */
  version: DeploymentVersion;
  /** Resolves when the worker has stopped (after shutdown()). */
  done: Promise<void>;
  shutdown(): Promise<void>;
}

/**
 * Starts a Temporal worker for every workflow and activity of the service on one task queue.
 * `workflowBundlePath` reuses a prebuilt bundle (tests build it once) instead of bundling at start.
 */
export async function startWorker(opts: {
  deps: ActivityDeps;
  endpoints: Endpoints;
  taskQueue: string;
  workflowBundlePath?: string;
  /** OpenTelemetry (platform/tracing.ts), when configured: traces workflows and activities. */
  tracing?: Tracing;
}): Promise<RunningWorker> {
  await installRuntime(opts.deps);
  const bundle = await bundleOf(opts.workflowBundlePath);
  const version: DeploymentVersion = {
    deploymentName: deploymentNameFor(opts.taskQueue),
    buildId: opts.deps.config.WORKER_BUILD_ID ?? buildIdOfBundle('code' in bundle ? bundle.code : fs.readFileSync(bundle.codePath)),
  };
  const connection = await NativeConnection.connect(temporalConnectionOptions(opts.deps.config.temporal, opts.endpoints.temporalAddress));
  const stopping = new AbortController();
  const worker = await Worker.create({
    connection,
    namespace: opts.endpoints.temporalNamespace,
    taskQueue: opts.taskQueue,
    activities: createActivities({ ...opts.deps, stopping: stopping.signal }),
    plugins: opts.tracing ? [opts.tracing.workerPlugin] : [],
    // Refusals fail a step for good instead of being retried forever (worker/activity-failures.ts).
    interceptors: { activity: [activityFailureInterceptors(opts.deps.log.child({ component: 'activities' }))] },
    // Tracing adds the SDK's workflow interceptors to the bundle, so the prebuilt bundle (without
    // them) is not run then: the workflows are bundled at start instead (same workflow code: the
    // interceptors add no command, so the build id stays the plain bundle's).
    ...(opts.tracing ? { workflowsPath: WORKFLOWS_PATH } : { workflowBundle: bundle }),
    // One version of the task queue's Worker Deployment (worker/versioning.ts); a workflow type
    // that declares no behaviour is pinned (workflows/shared/versioning.ts).
    workerDeploymentOptions: { version, useWorkerVersioning: true, defaultVersioningBehavior: 'PINNED' },
    // A graceful stop lets running activities finish for this long before they are cancelled (they
    // are idempotent and retried); `npm start` must stop within 10 s in all (docs/decisions/0002-servers-in-their-own-process-groups.md).
    shutdownGraceTime: '3s',
    ...WORKER_TUNING,
  });
  const done = worker.run().finally(() => connection.close());
  try {
    // Before anything starts a run: a deployment without a current version routes new runs to unversioned workers.
    await applySetCurrentPolicy(opts.deps.temporal, version, opts.taskQueue, opts.deps.config.WORKER_SET_CURRENT, opts.deps.log);
    // The callback outbox dispatcher and this task queue's schedules: statements, key and data pruning.
    await ensureCallbackDispatcher(opts.deps, opts.taskQueue);
    await ensureMonthlyStatementsSchedule(opts.deps, opts.taskQueue);
    await ensureHourlySchedules(opts.deps, opts.taskQueue);
  } catch (err) {
    stopping.abort();
    worker.shutdown();
    await done.catch(() => undefined);
    throw err;
  }
  return {
    worker,
    version,
    done,
    async shutdown() {
      stopping.abort();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}

/**
 * The workflow bundle the worker runs and its build id hashes: the given prebuilt one, else the
 * cached one (worker/workflow-bundle.ts), else (a cache folder we may not write) one built in memory.
 */
async function bundleOf(prebuilt?: string): Promise<{ codePath: string } | { code: string }> {
  if (prebuilt) return { codePath: prebuilt };
  try {
    return { codePath: (await workflowBundle(WORKFLOWS_PATH)).path };
  } catch {
    return { code: (await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH })).code };
  }
}

/**
 * Starts the callback outbox dispatcher (docs/callbacks.md) unless it already runs: a fixed id per
 * task queue and USE_EXISTING make every worker's start-up call safe, however many workers start.
 */
export async function ensureCallbackDispatcher(deps: Pick<ActivityDeps, 'temporal'>, taskQueue: string): Promise<void> {
  await deps.temporal.workflow.start<CallbackDispatcherWorkflow>(CALLBACK_DISPATCHER_WORKFLOW_TYPE, {
    workflowId: callbackDispatcherWorkflowId(taskQueue),
    taskQueue,
    args: [{}],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

/**
 * Creates the Schedule that starts the monthly statements at 00:30 UTC on the 1st of each month
 * for the month before (docs/statements.md), or, when it exists, sets it to this release's
 * definition, keeping an operator's pause and note (`ensureSchedule`). A worker down over the 1st
 * catches up within 3 days; a run still going when the next is due (never, monthly) makes the next
 * wait its turn rather than skip.
 */
export async function ensureMonthlyStatementsSchedule(deps: Pick<ActivityDeps, 'temporal'>, taskQueue: string): Promise<void> {
  const scheduleId = monthlyStatementsScheduleId(taskQueue);
  const definition = {
    spec: { calendars: [{ comment: '00:30 UTC on the 1st', dayOfMonth: 1, hour: 0, minute: 30 }], timezone: 'UTC' },
    action: {
      // eslint-disable-next-line no-restricted-syntax -- the SDK's kind of schedule action, not a workflow type
      type: 'startWorkflow' as const,
      workflowType: MONTHLY_STATEMENTS_WORKFLOW_TYPE,
      args: [{} satisfies MonthlyStatementsInput],
      taskQueue,
      workflowId: monthlyStatementsScheduledWorkflowId(taskQueue),
    },
    policies: { overlap: ScheduleOverlapPolicy.BUFFER_ONE, catchupWindow: '3 days' },
  };
  await ensureSchedule(deps, scheduleId, definition);
}

/**
 * The hourly housekeeping Schedules, each created (or set to this release's definition, keeping an
 * operator's pause and note): expired Idempotency-Keys, and change-feed events and finished callback
 * deliveries past their retention (docs/data-retention.md). A missed hour is not caught up (the
 * next run deletes what it left); runs never overlap.
 */
export async function ensureHourlySchedules(deps: Pick<ActivityDeps, 'temporal'>, taskQueue: string): Promise<void> {
  const hourly = [
    {
      scheduleId: idempotencyKeyPruningScheduleId(taskQueue),
      offset: '17 minutes',
      workflowType: IDEMPOTENCY_KEY_PRUNING_WORKFLOW_TYPE,
      args: [{} satisfies IdempotencyKeyPruningInput],
      workflowId: idempotencyKeyPruningScheduledWorkflowId(taskQueue),
    },
    {
      scheduleId: dataPruningScheduleId(taskQueue),
      offset: '41 minutes',
      workflowType: DATA_PRUNING_WORKFLOW_TYPE,
      args: [{} satisfies DataPruningInput],
      workflowId: dataPruningScheduledWorkflowId(taskQueue),
    },
  ];
  for (const { scheduleId, offset, workflowType, args, workflowId } of hourly) {
    await ensureSchedule(deps, scheduleId, {
      spec: { intervals: [{ every: '1 hour', offset }] },
      // eslint-disable-next-line no-restricted-syntax -- the SDK's kind of schedule action, not a workflow type
      action: { type: 'startWorkflow' as const, workflowType, args, taskQueue, workflowId },
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: '1 minute' },
    });
  }
}

/**
 * Creates a Schedule or, when it exists, sets it to this release's definition (a schedule created
 * by an older release follows a changed spec or action), keeping its state: an operator's pause
 * and note stay. Every worker's start-up call is safe (all write the same definition).
 */
async function ensureSchedule(
  deps: Pick<ActivityDeps, 'temporal'>,
  scheduleId: string,
  definition: Pick<ScheduleOptions, 'spec' | 'action' | 'policies'>,
): Promise<void> {
  try {
    await deps.temporal.schedule.create({ scheduleId, ...definition });
  } catch (err) {
    if (!(err instanceof ScheduleAlreadyRunning)) throw err;
    await deps.temporal.schedule
      .getHandle(scheduleId)
      .update(({ state }) => ({ ...definition, state: { paused: state.paused, note: state.note } }));
  }
}
