import path from 'node:path';
import { NativeConnection, Worker, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { createActivities } from '../activities';
import type { ActivityDeps } from '../activities/deps';
import type { Endpoints } from '../infra/stack';

let runtimeInstalled = false;

/** Routes the Temporal Core SDK's own logs through our logger, once per process. */
function installRuntime(deps: ActivityDeps) {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const log = deps.log.child({ component: 'temporal-worker' });
  Runtime.install({
    logger: {
      log: (level, message, meta) => log[level === 'TRACE' ? 'trace' : (level.toLowerCase() as 'debug' | 'info' | 'warn' | 'error')](meta ?? {}, message),
      trace: (m, meta) => log.trace(meta ?? {}, m),
      debug: (m, meta) => log.debug(meta ?? {}, m),
      info: (m, meta) => log.info(meta ?? {}, m),
      warn: (m, meta) => log.warn(meta ?? {}, m),
      error: (m, meta) => log.error(meta ?? {}, m),
    },
    telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }), forward: {} } },
  });
}

export interface RunningWorker {
  worker: Worker;
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
}): Promise<RunningWorker> {
  installRuntime(opts.deps);
  const connection = await NativeConnection.connect({ address: opts.endpoints.temporalAddress });
  const worker = await Worker.create({
    connection,
    namespace: opts.endpoints.temporalNamespace,
    taskQueue: opts.taskQueue,
    activities: createActivities(opts.deps),
    ...(opts.workflowBundlePath
      ? { workflowBundle: { codePath: opts.workflowBundlePath } }
      : { workflowsPath: path.join(__dirname, '..', 'workflows', 'index.ts') }),
    // A graceful stop lets running activities finish for this long before they are cancelled.
    shutdownGraceTime: '10s',
  });
  const done = worker.run().finally(() => connection.close());
  return {
    worker,
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done;
    },
  };
}
