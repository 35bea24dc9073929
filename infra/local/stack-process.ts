import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { alive } from './child-process';
import { removeDataDir } from './data-dir';
import { freePort } from '../../platform/free-port';
import { waitFor } from '../../platform/wait-for';
import type { Endpoints } from '../../platform/endpoints';

const ROOT = path.resolve(__dirname, '..', '..');
const STACK_TIMEOUT_MS = 15 * 60_000; // the very first run builds two Go servers

export interface StackProcess {
  dataDir: string;
  endpoints: Endpoints;
  pid: number;
}

/**
 * The real stack in a child process, started exactly as `npm start` starts it (main/launch.cjs)
 * but on free ports, in a fresh temporary DATA_DIR, without API and worker: for the test suite and
 * the benchmarks, which run their own API and workers so they can restart them.
 */
export async function startStackProcess(opts: { prefix: string; onProgress?: (line: string) => void }): Promise<StackProcess> {
  // Owner-only, as the stack keeps it (infra/local/data-dir.ts): as root, Postgres' cluster is linked out of it.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), opts.prefix));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    RUN_API: 'false',
    RUN_WORKER: 'false',
    LOG_LEVEL: 'warn',
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    TEMPORAL_DEV_PORT: String(await freePort()),
    EMBEDDED_S3_PORT: String(await freePort()),
  };
  const { ready, pid } = await runUntilReady<Endpoints>('the stack', {
    args: [path.join(ROOT, 'main', 'launch.cjs')],
    env,
    dataDir,
    log: 'stack-process.log',
    // The stack file is written after migrations, so the schema is ready too.
    readyFile: 'stack.json',
    onProgress: opts.onProgress,
  });
  return { dataDir, endpoints: ready, pid };
}

/** SIGTERM (the stack stops its servers in order), wait for it, then remove its DATA_DIR. */
export async function stopStackProcess(pid: number, dataDir?: string): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    // gone already
  }
  await waitFor(`stack process ${pid} to exit`, () => !alive(pid), { deadlineMs: 30_000 }).catch(() => undefined);
  if (dataDir) removeDataDir(dataDir);
}

/** The environment variables that point configuration at a running stack. */
export function stackEnv(s: StackProcess): Record<string, string> {
  return {
    DATA_DIR: s.dataDir,
    DATABASE_URL: s.endpoints.databaseUrl,
    TEMPORAL_ADDRESS: s.endpoints.temporalAddress,
    S3_ENDPOINT: s.endpoints.s3.endpoint,
    S3_ACCESS_KEY: s.endpoints.s3.accessKey,
    S3_SECRET_KEY: s.endpoints.s3.secretKey,
    ...(s.endpoints.temporalUiUrl ? { TEMPORAL_UI_URL: s.endpoints.temporalUiUrl } : {}),
  };
}

/** A running `npm run stack:cluster` (main/stack-cluster.ts): its DATA_DIR, the environment that names its servers, its pid. */
export interface ClusterStackProcess {
  dataDir: string;
  env: Record<string, string>;
  pid: number;
}

/**
 * `npm run stack:cluster` in a child process, in a fresh temporary folder: Postgres, S3 and a Temporal
 * cluster over mTLS, for the cluster lane (test/cluster/). Stopped with stopStackProcess.
 */
export async function startClusterStackProcess(opts: {
  prefix: string;
  onProgress?: (line: string) => void;
}): Promise<ClusterStackProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), opts.prefix));
  fs.chmodSync(dataDir, 0o755); // the embedded Postgres runs as the `postgres` user when we are root
  const { ready, pid } = await runUntilReady<{ env: Record<string, string> }>('stack:cluster', {
    args: ['--import', 'tsx', path.join(ROOT, 'main', 'stack-cluster.ts'), '--data-dir', dataDir],
    env: { ...process.env, LOG_LEVEL: 'warn' },
    dataDir,
    log: 'stack-cluster.log',
    readyFile: 'cluster.json',
    onProgress: opts.onProgress,
  });
  return { dataDir, env: ready.env, pid };
}

/**
 * Runs Node with `args` from the repository root, its output kept in `dataDir/<log>` (stderr lines
 * also to `onProgress`), until it writes `dataDir/<readyFile>`: answers that file's JSON and the
 * child's pid, the child left running. Its exit before then is an error ending with the log's tail.
 */
async function runUntilReady<T>(
  what: string,
  a: { args: string[]; env: NodeJS.ProcessEnv; dataDir: string; log: string; readyFile: string; onProgress?: (line: string) => void },
): Promise<{ ready: T; pid: number }> {
  const logPath = path.join(a.dataDir, a.log);
  const log = fs.openSync(logPath, 'a');
  const child = spawn(process.execPath, a.args, { cwd: ROOT, env: a.env, stdio: ['ignore', log, 'pipe'] });
  child.stderr!.on('data', (chunk: Buffer) => {
    fs.writeSync(log, chunk);
    for (const line of chunk.toString().split('\n')) if (line.trim()) a.onProgress?.(line);
  });
  const readyPath = path.join(a.dataDir, a.readyFile);
  await waitFor(
    `${what} to start (see ${logPath})`,
    () => {
      if (child.exitCode !== null)
        throw new Error(`${what} exited (${child.exitCode}); see ${logPath}:\n${fs.readFileSync(logPath, 'utf8').slice(-3000)}`);
      return fs.existsSync(readyPath);
    },
    { deadlineMs: STACK_TIMEOUT_MS },
  );
  child.unref();
  return { ready: JSON.parse(fs.readFileSync(readyPath, 'utf8')) as T, pid: child.pid! };
}
