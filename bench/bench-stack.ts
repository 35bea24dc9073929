import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from '../api/app';
import { createApiKey } from '../services/api-clients';
import { claimEnvironment } from '../services/deployment';
import { migrateToLatest } from '../store/migrate';
import type { Config } from '../platform/config';
import { freePort } from '../platform/free-port';
import { createLogger } from '../platform/logger';
import { connectServices, type Services } from '../main';
import { resolveEndpoints } from '../platform/endpoints';
import { TEMPORAL_SERVICES } from '../infra/local/temporal-cluster-config';
import { stackEnv, startClusterStackProcess, startStackProcess, stopStackProcess, type StackProcess } from '../infra/local/stack-process';
import { startWorker } from '../worker/main';
import { benchConfig } from './bench-config';

/*
 * What every section of `npm run bench` measures against: its own stack (embedded Postgres,
 * Temporal dev server, S3 server) on free ports, the service's API on it with the default
 * settings, a worker, and a key of each interface.
 */

export const say = (m: string) => process.stderr.write(`[bench] ${m}\n`);

type ApiKey = Awaited<ReturnType<typeof createApiKey>>;

export interface BenchStack {
  stack: StackProcess;
  config: Readonly<Config>;
  services: Services;
  /** The API's address, `http://127.0.0.1:<port>`. */
  base: string;
  sub: ApiKey;
  dist: ApiKey;
  /** `one-process` (the worker in this process, as `npm start` runs it) or `separate` (BENCH_WORKER=separate). */
  layout: 'one-process' | 'separate';
  /** The worker's process when it runs in its own. */
  workerPid?: number;
  /** Which Temporal: the dev server (one process) or a real cluster over mTLS (four: `npm run stack:cluster`). */
  temporal: 'dev server' | 'cluster';
  /** What names the stack's servers to a process of the service (DATABASE_URL, S3_*, TEMPORAL_*). */
  env: Record<string, string>;
  /** The cluster's server processes by pid (`temporal-history`, …), for the CPU by process. */
  roles: Map<number, string>;
  /** POSTs `body` as JSON to the API with `key`. */
  post(url: string, key: string, body: unknown): Promise<Response>;
}

/**
 * Starts the stack; `stops` gets what stops each part again (to be run last first, however the run
 * ends). With `cluster`, Temporal is a real cluster over mTLS, and the worker runs apart (the production layout).
 */
export async function startBenchStack(stops: Array<() => Promise<unknown>>, cluster = false): Promise<BenchStack> {
  const { stack, env, roles } = cluster ? await clusterStack(stops) : await devStack(stops);
  const config = benchConfig(env);
  const services = await connectServices(config, stack.endpoints, createLogger('silent'));
  stops.push(() => services.close());
  // `npm run stack:cluster` starts the servers only: the database is migrated and claimed here, as `npm start` does.
  if (cluster) await migrateToLatest(services.db).then(() => claimEnvironment(services, config.SERVICE_ENVIRONMENT));
  const layout = cluster || process.env.BENCH_WORKER === 'separate' ? 'separate' : 'one-process';
  const workerPid = await startBenchWorker(stack, env, services, layout, stops);
  const app = await buildApp(services);
  stops.push(() => app.close());
  const port = await freePort();
  await app.listen({ port, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${port}`;
  const sub = await createApiKey(services, { iface: 'submission', environment: config.SERVICE_ENVIRONMENT });
  const dist = await createApiKey(services, { iface: 'distribution', environment: config.SERVICE_ENVIRONMENT });
  const post = (url: string, key: string, body: unknown) =>
    fetch(`${base}${url}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-api-key': key },
      body: JSON.stringify(body),
    });
  return { stack, config, services, base, sub, dist, layout, workerPid, post, env, roles, temporal: cluster ? 'cluster' : 'dev server' };
}

async function devStack(stops: Array<() => Promise<unknown>>) {
  say('starting the stack (embedded Postgres, Temporal dev server, S3 server)…');
  const stack = await startStackProcess({ prefix: 'offer-marketplace-bench-' });
  stops.push(() => stopStackProcess(stack.pid, stack.dataDir));
  return { stack, env: stackEnv(stack), roles: new Map<number, string>() };
}

/** `npm run stack:cluster` in a child process, with the pids of its four server processes. */
async function clusterStack(stops: Array<() => Promise<unknown>>) {
  say('starting the cluster stack (embedded Postgres, a Temporal cluster of four processes over mTLS, S3 server)…');
  const cluster = await startClusterStackProcess({ prefix: 'offer-marketplace-bench-cluster-' });
  stops.push(() => stopStackProcess(cluster.pid, cluster.dataDir));
  const env = { ...cluster.env, DATA_DIR: cluster.dataDir };
  const stack: StackProcess = { dataDir: cluster.dataDir, pid: cluster.pid, endpoints: resolveEndpoints(benchConfig(env)) };
  const pidOf = (s: string) => Number(fs.readFileSync(path.join(cluster.dataDir, `temporal-${s}.pid`), 'utf8').trim());
  const roles = new Map(TEMPORAL_SERVICES.map((s) => [pidOf(s), `temporal-${s}`]));
  return { stack, env, roles };
}

/**
 * The worker process's V8 heap cap, as docs/deployment.md sets it for worker processes: without it
 * V8 lets the old generation grow to several times what is live before collecting (a bulk import's
 * batches took the worker from 270 to 580 MB); BENCH_WORKER_NODE_FLAGS replaces it.
 */
const WORKER_NODE_FLAGS = (process.env.BENCH_WORKER_NODE_FLAGS ?? '--max-old-space-size=160').split(' ').filter(Boolean);

/**
 * The worker in this process, as `npm start` runs it, or (BENCH_WORKER=separate) in a process of
 * its own, as the production layout does (docs/deployment.md), where it does not share the API's
 * (and the load generator's) event loop. Answers the worker's pid when it has its own process.
 */
async function startBenchWorker(
  stack: StackProcess,
  env: Record<string, string>,
  services: Services,
  layout: BenchStack['layout'],
  stops: Array<() => Promise<unknown>>,
): Promise<number | undefined> {
  if (layout === 'one-process') {
    const worker = await startWorker({ deps: services, endpoints: stack.endpoints, taskQueue: services.config.TEMPORAL_TASK_QUEUE });
    stops.push(() => worker.shutdown());
    return undefined;
  }
  const child = spawn(process.execPath, [...WORKER_NODE_FLAGS, '--import', 'tsx', path.join(__dirname, '..', 'main', 'worker-only.ts')], {
    env: { ...process.env, ...env, LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '20' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  stops.push(async () => {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
  });
  return child.pid;
}
