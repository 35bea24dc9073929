import closeWithGrace from 'close-with-grace';
import { buildApp, buildWorkerProbeApp } from '../api/app';
import { startWorker, WORKFLOWS_PATH, type RunningWorker } from '../worker/main';
import { versionLabel } from '../platform/worker-deployments';
import { loadConfigOrExit, type Config } from '../platform/config';
import { migrateToLatest } from '../store/migrate';
import { claimEnvironment } from '../services/deployment';
import { checkCallbackSecretKey } from '../services/callbacks';
import { loadGazetteer, loadZipcodes } from '../platform/geodata';
import { createLogger, progress } from '../platform/logger';
import { ensureBucket } from '../platform/object-store';
import { connectServices, type Services } from './wiring';
import { writeStackFile } from '../platform/endpoints';
import { startStack, type Stack } from '../infra/local/stack';
import { KEYWORD_SEARCH_ATTRIBUTES, registerSearchAttributes } from '../worker/search-attributes';
import { workflowBundle } from '../worker/workflow-bundle';
import { INTERFACE_PREFIX } from '../domain/environment';

type App = Awaited<ReturnType<typeof buildApp>>;

/** Where this process listens, as a local user would open it. */
const localUrl = (cfg: Readonly<Config>) => `http://${cfg.HOST === '0.0.0.0' ? '127.0.0.1' : cfg.HOST}:${cfg.PORT}`;

/**
 * Bounds on the shutdown steps. Each of ours normally takes well under a second; bounded, a stuck
 * one cannot hold the stop past STOP_MS. The worker's is its activities' grace time plus a margin.
 * The servers stop last, Postgres with what is left of STOP_MS (at least its 2 s), less a second
 * for the SIGKILL that follows a grace run out.
 */
const STOP_MS = 10_000;
const DRAIN_MS = 2_000;
const WORKER_MS = 4_000;
const CLOSE_MS = 1_000;
const MIN_POSTGRES_GRACE_MS = 2_000;
const KILL_MS = 1_000;
/** When the postal-code data loads after the start (see below). */
const GEODATA_DELAY_MS = 10_000;

async function within(ms: number, step: Promise<unknown> | undefined): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([step?.catch(() => undefined), new Promise((resolve) => (timer = setTimeout(resolve, ms).unref()))]).finally(() =>
    clearTimeout(timer),
  );
}

/** The first of these that failed, in their order, once all of them have ended. */
async function allOrFirstError(steps: Array<Promise<unknown> | undefined>): Promise<void> {
  const failed = (await Promise.allSettled(steps)).find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}

type Logger = ReturnType<typeof createLogger>;
type Running = { services?: Services; worker?: RunningWorker; app?: App };
type Bundle = Promise<{ path: string } | undefined> | undefined;

/**
 * `npm start`: the stores (embedded or configured), migrations, the Temporal worker and the API,
 * in that order; Ctrl-C stops them all in reverse. Steps that need different things run side by
 * side: the three servers start together while the workflows are bundled (or found unchanged),
 * and the checks of each backend run together while the API's routes are built.
 */
async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL);
  progress(`data directory: ${config.DATA_DIR} (environment: ${config.SERVICE_ENVIRONMENT})`);
  // With tracing, the worker bundles at start itself: its interceptors must be in the bundle.
  const bundle = config.RUN_WORKER && !config.OTEL_EXPORTER_OTLP_ENDPOINT ? bundleWorkflows() : undefined;
  const stack = await startStack(config, { keywordSearchAttributes: KEYWORD_SEARCH_ATTRIBUTES });
  const running: Running = {};
  // Ctrl-C stops in order, within 10 s: stop accepting and drain requests, shut the worker down,
  // close the pools, then Temporal, the S3 server and Postgres (each bounded; see infra/local/stack.ts).
  const stopAll = async () => {
    const until = Date.now() + STOP_MS;
    await within(DRAIN_MS, running.app?.close());
    await within(WORKER_MS, running.worker?.shutdown());
    await within(CLOSE_MS, running.services?.close());
    await stack.stop({ postgresGraceMs: Math.max(MIN_POSTGRES_GRACE_MS, until - Date.now() - KILL_MS) });
  };
  stopOnSignals(log, stopAll);
  try {
    running.services = await connectServices(config, stack.endpoints, log);
    await checkBackends(config, stack, running.services, running);
    await startServing(config, stack, running, bundle, log);
  } catch (err) {
    await stopAll(); // leave nothing running behind a failed start
    throw err;
  }
  if (stack.endpoints.temporalUiUrl) progress(`temporal web UI: ${stack.endpoints.temporalUiUrl}`);
  progress('ready; Ctrl-C stops everything');
  // The postal-code data and the city gazetteer (platform/geodata.ts) load a little after the start
  // rather than in the first request that needs them; not at once, where they would hold up the
  // first requests, /health too; one after the other, since each takes noticeable CPU.
  setTimeout(() => loadZipcodes(), GEODATA_DELAY_MS).unref();
  setTimeout(() => loadGazetteer(), 2 * GEODATA_DELAY_MS).unref();
}

/** Ctrl-C (or SIGTERM, or an uncaught error) stops everything once, in order. */
function stopOnSignals(log: Logger, stopAll: () => Promise<void>) {
  let firstSignalAt = 0;
  closeWithGrace(
    {
      delay: 15_000, // a backstop only: the steps of stopAll are bounded well inside it
      logger: { error: (m: unknown) => log.error(m) },
      // `npm start` relays the terminal's Ctrl-C to us, which also gets it from the terminal: two
      // SIGINTs for one key press. Only a second Ctrl-C a moment later means "stop now".
      onSecondSignal: (signal) => {
        if (Date.now() - firstSignalAt < 2_000) return;
        progress(`second ${signal}: stopping now`);
        process.exit(1); // the exit hook kills the servers we started
      },
      onSecondError: (err) => log.warn({ err }, 'error while stopping (continuing)'),
    },
    async ({ signal, err }) => {
      firstSignalAt = Date.now();
      if (err) log.error({ err }, 'stopping after an error');
      progress(`stopping${signal ? ` on ${signal}` : ''}…`);
      await stopAll();
      progress('stopped');
    },
  );
}

/** Migrations, the environment claim, the callback key, the bucket and search attributes, while the API's routes are built. */
async function checkBackends(cfg: Readonly<Config>, s: Stack, services: Services, r: Running) {
  const schema = async () => {
    progress('migrations: applying…');
    const applied = await migrateToLatest(services.db);
    progress(`migrations: ${applied.length ? `applied ${applied.join(', ')}` : 'schema up to date'}`);
    await claimEnvironment(services, cfg.SERVICE_ENVIRONMENT); // sandbox and production never share a database
    await checkCallbackSecretKey(services); // encrypted signing secrets need their key (docs/security.md)
  };
  const api = async () => {
    if (cfg.RUN_API) r.app = await buildApp(services); // routes and schemas only: nothing listens yet
  };
  const searchAttributes = async () => {
    const outcome = await registerSearchAttributes(services.temporalConnection.operatorService, s.endpoints.temporalNamespace);
    // Temporal Cloud refuses the operator API: the start goes on, and says what an operator must add.
    if (outcome.status === 'refused') services.log.warn({ missing: outcome.missing }, outcome.warning);
  };
  await allOrFirstError([schema(), ensureBucket(services.store, cfg.S3_REGION), searchAttributes(), api()]);
  progress('checks: schema, environment, callback key, bucket and search attributes in place');
  writeStackFile(cfg.DATA_DIR, s.endpoints);
}

/** The worker (when this process runs one), then the API, which answers only once the worker that carries out its requests runs. */
async function startServing(cfg: Readonly<Config>, s: Stack, r: Running, bundle: Bundle, log: Logger) {
  const services = r.services!;
  if (cfg.RUN_WORKER) {
    progress(`worker: starting on task queue ${cfg.TEMPORAL_TASK_QUEUE}…`);
    r.worker = await startWorker({
      deps: services,
      endpoints: s.endpoints,
      taskQueue: cfg.TEMPORAL_TASK_QUEUE,
      workflowBundlePath: (await bundle)?.path,
      tracing: services.tracing,
    });
    r.worker.done.catch((e) => {
      log.error({ err: e }, 'worker stopped unexpectedly');
      process.kill(process.pid, 'SIGTERM');
    });
    progress(`worker: running as version ${versionLabel(r.worker.version)}`);
  }
  if (r.app) {
    await r.app.listen({ port: cfg.PORT, host: cfg.HOST });
    progress(`api: ${localUrl(cfg)} (${INTERFACE_PREFIX.submission}, ${INTERFACE_PREFIX.distribution}, /health)`);
  } else if (cfg.RUN_WORKER) {
    // A worker-only process still answers scrapes and probes: its counters live here.
    r.app = await buildWorkerProbeApp(services);
    await r.app.listen({ port: cfg.PORT, host: cfg.HOST });
    progress(`metrics: ${localUrl(cfg)}/metrics and /health (worker-only process, no API routes)`);
  }
}

/**
 * The workflow bundle, reused from the cache while its sources are unchanged (worker/workflow-bundle.ts).
 * Undefined when that fails (a cache folder we may not write, a workflow that does not compile):
 * the worker then bundles at start as it did before the cache, and reports any error itself.
 */
async function bundleWorkflows(): Promise<{ path: string } | undefined> {
  const started = Date.now();
  try {
    const b = await workflowBundle(WORKFLOWS_PATH);
    progress(b.cached ? 'workflows: bundle unchanged, reused' : `workflows: bundled in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return b;
  } catch (err) {
    progress(`workflows: no cached bundle (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); the worker bundles them`);
    return undefined;
  }
}

main().catch((err) => {
  progress(`start-up failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
