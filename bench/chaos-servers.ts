import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildApp } from '../api/app';
import { loadConfig, type Config } from '../platform/config';
import { migrateToLatest } from '../store/migrate';
import { freePort } from '../platform/free-port';
import { createLogger } from '../platform/logger';
import { startEmbeddedObjectStore } from '../infra/local/stack';
import { ensureBucket } from '../platform/object-store';
import { startEmbeddedPostgres, type RunningPostgres } from '../infra/local/postgres';
import { connectServices, type Services } from '../main';
import { startTemporalDevServer, type RunningTemporal } from '../infra/local/temporal';
import { KEYWORD_SEARCH_ATTRIBUTES, registerSearchAttributes } from '../worker/search-attributes';

/*
 * The chaos run's stack (bench/chaos.ts), each part a process of its own so that it can really be
 * killed: Postgres, the Temporal dev server and the S3 server `npm start` runs; an API in this
 * process; the worker alone; and a second API with its worker in one process, as `npm start` runs
 * them (on the same stores and task queue). Each part can be killed or restarted by a fault.
 */

const ROOT = path.resolve(__dirname, '..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ChaosStack {
  config: Readonly<Config>;
  services: Services;
  /** The API in this process, and the API+worker process. */
  base: string;
  bothBase: string;
  killWorker(): void;
  startWorker(): void;
  restartTemporal(): Promise<void>;
  stopPostgres(): Promise<void>;
  startPostgres(): Promise<void>;
  killBoth(): void;
  startBoth(): void;
  /** Settles once the API+worker process says it is ready; throws when it exits or takes over 4 minutes. */
  bothReady(): Promise<void>;
  /** How the API+worker process answered orders so far (order_answers_total by `via`, from its /metrics). */
  bothAnswers(): Promise<Record<string, number>>;
}

/** Starts every part in `dataDir`; `stops` gets what stops each (to be run last first, however the run ends). */
export async function startChaosStack(dataDir: string, stops: Array<() => Promise<unknown>>): Promise<ChaosStack> {
  const ports = { api: await freePort(), both: await freePort() };
  const servers = await startServers(dataDir, stops);
  const { env } = servers;
  const config = loadConfig({ ...process.env, ...env });
  const services = await connectServices(config, servers.endpoints(config), createLogger('silent'));
  stops.push(() => services.close());
  await migrateToLatest(services.db);
  await ensureBucket(services.store, config.S3_REGION);
  await registerSearchAttributes(services.temporalConnection.operatorService, config.TEMPORAL_NAMESPACE);
  const app = await buildApp(services);
  stops.push(() => app.close());
  await app.listen({ port: ports.api, host: '127.0.0.1' });
  const worker = processOf('worker-only.ts', () => ({ env: { ...process.env, ...env }, stdio: 'ignore' }));
  stops.push(async () => worker.kill());
  worker.start();
  // The API+worker process has a DATA_DIR of its own, so its stack file stays apart from the servers' pid files.
  const both = processOf('start.ts', () => ({
    env: {
      ...process.env,
      ...env,
      DATA_DIR: fs.mkdtempSync(path.join(dataDir, 'api-and-worker-')),
      HOST: '127.0.0.1',
      PORT: String(ports.both),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  }));
  stops.push(async () => both.kill());
  both.start();
  const bothBase = `http://127.0.0.1:${ports.both}`;
  return {
    config,
    services,
    base: `http://127.0.0.1:${ports.api}`,
    bothBase,
    killWorker: worker.kill,
    startWorker: worker.start,
    restartTemporal: servers.restartTemporal,
    stopPostgres: servers.stopPostgres,
    startPostgres: servers.startPostgres,
    killBoth: both.kill,
    startBoth: both.start,
    bothReady: async () => {
      for (const until = Date.now() + 240_000; !both.output().includes('ready; Ctrl-C stops everything'); await sleep(200))
        if (both.exited() || Date.now() > until) throw new Error(`the API+worker process did not start:\n${both.output()}`);
    },
    bothAnswers: async () => {
      const text = await (await fetch(`${bothBase}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
      return Object.fromEntries([...text.matchAll(/^order_answers_total\{via="(\w+)"\} (\d+)/gm)].map((m) => [m[1], Number(m[2])]));
    },
  };
}

/** Postgres, the Temporal dev server and the S3 server on free ports, the env that names them, and their restarts. */
async function startServers(dataDir: string, stops: Array<() => Promise<unknown>>) {
  const ports = { pg: await freePort(), temporal: await freePort(), ui: await freePort(), s3: await freePort() };
  const servers: { pg?: RunningPostgres; temporal?: RunningTemporal } = {};
  stops.push(
    async () => servers.pg?.stop(),
    async () => servers.temporal?.stop(),
  );
  const startPostgres = async () => {
    servers.pg = await startEmbeddedPostgres({ dataDir, port: ports.pg });
  };
  const startTemporal = async () => {
    const options = { dataDir, port: ports.temporal, uiPort: ports.ui, namespace: 'default' };
    servers.temporal = await startTemporalDevServer({ ...options, keywordSearchAttributes: KEYWORD_SEARCH_ATTRIBUTES });
  };
  await startPostgres();
  await startTemporal();
  // The S3 server `npm start` runs (EMBEDDED_S3: versitygw unless set otherwise).
  const objectStore = await startEmbeddedObjectStore(loadConfig(process.env).EMBEDDED_S3, { dataDir, port: ports.s3 });
  stops.push(objectStore.stop);
  const env: Record<string, string> = {
    DATA_DIR: dataDir,
    DATABASE_URL: servers.pg!.url,
    TEMPORAL_ADDRESS: servers.temporal!.address,
    S3_ENDPOINT: objectStore.endpoint,
    S3_ACCESS_KEY: objectStore.accessKey,
    S3_SECRET_KEY: objectStore.secretKey,
    RATE_LIMIT_PER_SECOND: '100000',
    LOG_LEVEL: 'silent',
    WORKFLOW_ANSWER_TIMEOUT_SECONDS: '10',
  };
  const endpoints = (config: Readonly<Config>) => ({
    databaseUrl: env.DATABASE_URL,
    temporalAddress: env.TEMPORAL_ADDRESS,
    temporalNamespace: 'default',
    s3: {
      endpoint: env.S3_ENDPOINT,
      accessKey: env.S3_ACCESS_KEY,
      secretKey: env.S3_SECRET_KEY,
      region: config.S3_REGION,
      bucket: config.S3_BUCKET,
    },
  });
  return {
    env,
    endpoints,
    startPostgres,
    stopPostgres: async () => servers.pg?.stop(),
    restartTemporal: async () => {
      await servers.temporal?.stop();
      await startTemporal();
    },
  };
}

/** A process of main/`file` that can be started again after a SIGKILL; its output is kept when piped. */
function processOf(file: string, options: () => { env: NodeJS.ProcessEnv; stdio: 'ignore' | ['ignore', 'pipe', 'pipe'] }) {
  let child: ChildProcess | undefined;
  let output = '';
  return {
    start: () => {
      output = '';
      child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'main', file)], { cwd: ROOT, ...options() });
      child.stdout?.on('data', (c) => (output += c));
      child.stderr?.on('data', (c) => (output += c));
    },
    kill: () => void child?.kill('SIGKILL'),
    output: () => output,
    exited: () => child?.exitCode !== null,
  };
}
