import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { freePort } from './free-port';

const ROOT = path.resolve(__dirname, '..', '..');
const STACK_TIMEOUT_MS = 15 * 60_000; // the very first run builds two Go servers

/**
 * Brings up the real stack for the suite exactly as `npm start` does (same entry point), but with
 * its own ports and a temporary DATA_DIR, and without the API and worker: tests build those
 * themselves so they can restart them. The endpoints reach the tests through the environment.
 */
export default async function globalSetup(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'offer-marketplace-test-'));
  fs.chmodSync(dataDir, 0o755); // the embedded Postgres runs as the `postgres` user when we are root
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    RUN_API: 'false',
    RUN_WORKER: 'false',
    LOG_LEVEL: 'warn',
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    TEMPORAL_DEV_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    MINIO_PORT: String(await freePort()),
  };
  const log = fs.openSync(path.join(dataDir, 'stack-process.log'), 'a');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'infra', 'start.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', log, 'pipe'],
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    fs.writeSync(log, chunk);
    for (const line of chunk.toString().split('\n')) if (/building|built|failed/.test(line)) process.stderr.write(`${line}\n`);
  });
  const stackFile = path.join(dataDir, 'stack.json');
  const until = Date.now() + STACK_TIMEOUT_MS;
  while (!fs.existsSync(stackFile)) {
    if (child.exitCode !== null) throw new Error(`test stack exited (${child.exitCode}); see ${path.join(dataDir, 'stack-process.log')}`);
    if (Date.now() > until) throw new Error('test stack did not start in time');
    await new Promise((r) => setTimeout(r, 250));
  }
  // The stack file is written after migrations, so the schema is ready too.
  const endpoints = JSON.parse(fs.readFileSync(stackFile, 'utf8'));
  Object.assign(process.env, {
    DATA_DIR: dataDir,
    DATABASE_URL: endpoints.databaseUrl,
    TEMPORAL_ADDRESS: endpoints.temporalAddress,
    S3_ENDPOINT: endpoints.s3.endpoint,
    S3_ACCESS_KEY: endpoints.s3.accessKey,
    S3_SECRET_KEY: endpoints.s3.secretKey,
    TEST_STACK_PID: String(child.pid),
  });
  // One workflow bundle for the whole suite: bundling per test file would cost seconds each.
  const { code } = await bundleWorkflowCode({ workflowsPath: path.join(ROOT, 'workflows', 'index.ts'), logger: quietLogger });
  const bundlePath = path.join(dataDir, 'workflow-bundle.js');
  fs.writeFileSync(bundlePath, code);
  process.env.WORKFLOW_BUNDLE_PATH = bundlePath;
}

const noop = () => undefined;
const quietLogger = { log: noop, trace: noop, debug: noop, info: noop, warn: noop, error: (m: string) => console.error(m) };
