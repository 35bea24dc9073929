import fs from 'node:fs';
import path from 'node:path';
import { ensureGoBinary, TEMPORAL_CLI, TEMPORAL_SERVER } from '../../infra/local/go-binaries';
import { startClusterStackProcess } from '../../infra/local/stack-process';
import { loadConfig } from '../../platform/config';
import { claimEnvironment } from '../../services/deployment';
import { createDb } from '../../store/db';
import { migrateToLatest } from '../../store/migrate';
import { workflowBundle } from '../../worker/workflow-bundle';

/**
 * The cluster lane's servers (test/cluster/): `npm run stack:cluster` in a temporary folder, that is
 * embedded Postgres, the local S3 server and a real Temporal cluster (four processes, mTLS on). Its
 * environment (DATABASE_URL, S3_*, TEMPORAL_ADDRESS and the TEMPORAL_TLS_* files) reaches the tests
 * through process.env, as it reaches an operator's processes; the database is migrated and claimed
 * as `npm start` does, and the workflow bundle made once for the lane.
 */
export default async function clusterGlobalSetup(): Promise<void> {
  // Built here on a cold cache (10–20 min on 2 cores), with its progress lines, so the cluster's own start is timed alone.
  const building = Date.now();
  await Promise.all([ensureGoBinary(TEMPORAL_SERVER), ensureGoBinary(TEMPORAL_CLI)]);
  if (Date.now() - building > 5_000)
    process.stderr.write(`cluster lane: binaries built in ${Math.round((Date.now() - building) / 1000)} s\n`);
  const started = Date.now();
  const stack = await startClusterStackProcess({
    prefix: 'offer-marketplace-cluster-',
    onProgress: (line) => process.stderr.write(`${line}\n`),
  });
  process.stderr.write(`cluster lane: servers ready in ${Math.round((Date.now() - started) / 1000)} s\n`);
  Object.assign(process.env, stack.env, { DATA_DIR: stack.dataDir, TEST_STACK_PID: String(stack.pid) });
  const db = createDb(stack.env.DATABASE_URL, 2);
  try {
    await migrateToLatest(db);
    await claimEnvironment({ db }, loadConfig(process.env).SERVICE_ENVIRONMENT);
  } finally {
    await db.destroy();
  }
  const bundle = await workflowBundle(path.join(__dirname, '..', '..', 'workflows', 'index.ts'));
  const bundlePath = path.join(stack.dataDir, 'workflow-bundle.js');
  fs.copyFileSync(bundle.path, bundlePath);
  process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
}
