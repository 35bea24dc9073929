import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { FloorActivities } from './floor-workflow';
import { loadConfig } from '../platform/config';
import { temporalConnectionOptions } from '../platform/temporal-connection';

/*
 * The worker of the floor workflow (bench/floor-workflow.ts), in a process of its own so that its
 * CPU is counted apart: `tsx bench/floor-worker.ts <temporal address> <task queue>`. Prints
 * "ready" once it polls; stops on SIGTERM. The same tuning as the service's worker (worker/main.ts).
 */

async function main() {
  const [address, taskQueue] = process.argv.slice(2);
  Runtime.install({ logger: new DefaultLogger('WARN') });
  // The bench's own cluster, reached like the service's worker reaches it (TLS, API key: the environment's).
  const connection = await NativeConnection.connect(temporalConnectionOptions(loadConfig().temporal, address));
  const activities: FloorActivities = { nothing: async (n) => n };
  const worker = await Worker.create({
    connection,
    taskQueue,
    workflowsPath: require.resolve('./floor-workflow'),
    activities,
    maxConcurrentWorkflowTaskExecutions: 100,
    maxConcurrentWorkflowTaskPolls: 16,
    nonStickyToStickyPollRatio: 0.75,
    maxCachedWorkflows: 500,
  });
  process.once('SIGTERM', () => worker.shutdown());
  const running = worker.run();
  process.stdout.write('ready\n');
  await running;
  await connection.close();
}

main().catch((err) => {
  process.stderr.write(`floor worker failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
