import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { ensureGoBinary, MINIO_SERVER } from '../../infra/local/go-binaries';
import { stackEnv, startStackProcess } from '../../infra/local/stack-process';
import { loadConfig } from '../../platform/config';
import { claimEnvironment } from '../../services/deployment';
import { createDb } from '../../store/db';
import { migrateToLatest } from '../../store/migrate';
import { workflowBundle } from '../../worker/workflow-bundle';

/**
 * Brings up the real stack for the suite exactly as `npm start` does, on its own ports and in a
 * temporary DATA_DIR, without API and worker: tests build those themselves so they can restart
 * them. The endpoints reach the tests through the environment. With jest workers (`--maxWorkers`),
 * each worker gets a database of its own (test/setup/env.ts points it there).
 */
export default async function globalSetup(
  globalConfig: { maxWorkers: number },
  project?: { displayName?: { name?: string } },
): Promise<void> {
  // The stack lane's attachment tests also run against MinIO (the other EMBEDDED_S3 server): on a
  // fresh machine its binary is built here, beside the stack's, rather than inside a test's two-minute
  // hook. The fuzz lane, which shares this set-up, does not need it.
  const [stack] = await Promise.all([
    startStackProcess({
      prefix: 'offer-marketplace-test-',
      onProgress: (line) => /building|built|failed/.test(line) && process.stderr.write(`${line}\n`),
    }),
    project?.displayName?.name === 'fuzz' ? undefined : ensureGoBinary(MINIO_SERVER),
  ]);
  Object.assign(process.env, stackEnv(stack), { TEST_STACK_PID: String(stack.pid) });
  if (globalConfig.maxWorkers > 1) await workerDatabases(process.env.DATABASE_URL!, globalConfig.maxWorkers);
  // One workflow bundle for the whole suite: bundling per test file would cost seconds each. It is
  // the one `npm start` caches (rebuilt only when a workflow's sources changed), copied so that a
  // start that rebuilds it meanwhile does not change it under the suite.
  const bundle = await workflowBundle(path.join(__dirname, '..', '..', 'workflows', 'index.ts'));
  const bundlePath = path.join(stack.dataDir, 'workflow-bundle.js');
  fs.copyFileSync(bundle.path, bundlePath);
  process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
}

/**
 * One database per jest worker, migrated and claimed as `npm start` does its own: the stack's tests
 * were written for one file at a time on a database (listings, queues and feeds that read every
 * client's rows), so files that run at once each have their own. Temporal and S3 are shared: every
 * harness has a task queue of its own, and ids (workflow ids, object keys) are unique.
 */
async function workerDatabases(url: string, workers: number): Promise<void> {
  const admin = createDb(url, 1);
  const environment = loadConfig(process.env).SERVICE_ENVIRONMENT;
  try {
    await Promise.all(
      Array.from({ length: workers }, async (_, i) => {
        const worker = new URL(url);
        worker.pathname = `${worker.pathname}_w${i + 1}`;
        await sql.raw(`create database "${worker.pathname.slice(1)}"`).execute(admin);
        const db = createDb(worker.toString(), 2);
        try {
          await migrateToLatest(db);
          await claimEnvironment({ db }, environment);
        } finally {
          await db.destroy();
        }
      }),
    );
  } finally {
    await admin.destroy();
  }
  Object.assign(process.env, { TEST_WORKER_DATABASES: String(workers), TEST_BASE_DATABASE_URL: url });
}
