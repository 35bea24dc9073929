import closeWithGrace from 'close-with-grace';
import type { ActivityDeps } from '../activities/deps';
import { loadConfigOrExit } from '../platform/config';
import { createLogger } from '../platform/logger';
import { connectServices } from './wiring';
import { resolveEndpoints } from '../platform/endpoints';
import { startWorker } from '../worker/main';
import { versionLabel } from '../platform/worker-deployments';

/**
 * A worker on its own, against a running stack (`npm start` with RUN_WORKER=false, or any
 * DATABASE_URL / TEMPORAL_ADDRESS / S3_ENDPOINT): `tsx main/worker-only.ts`. `extra` lets a test
 * entry add test seams to the activities' dependencies (and reuse a prebuilt workflow bundle);
 * production passes nothing.
 */
export async function runWorker(opts: { extra?: Partial<ActivityDeps>; workflowBundlePath?: string } = {}): Promise<void> {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL);
  const endpoints = resolveEndpoints(config);
  const services = await connectServices(config, endpoints, log);
  const worker = await startWorker({
    deps: { ...services, ...opts.extra },
    endpoints,
    taskQueue: config.TEMPORAL_TASK_QUEUE,
    workflowBundlePath: opts.workflowBundlePath,
    tracing: services.tracing,
  });
  closeWithGrace({ delay: 30_000 }, async () => {
    await worker.shutdown();
    await services.close();
  });
  log.info({ taskQueue: config.TEMPORAL_TASK_QUEUE, version: versionLabel(worker.version) }, 'worker running');
  await worker.done;
}

if (require.main === module) {
  runWorker().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
