import closeWithGrace from 'close-with-grace';
import { buildApp } from '../api/app';
import { startWorker, type RunningWorker } from '../worker/main';
import { loadConfigOrExit, type Config } from './config';
import { migrateToLatest } from './db/migrate';
import { createLogger, progress } from './logger';
import { ensureBucket } from './object-store';
import { connectServices, type Services } from './services';
import { startStack, writeStackFile, type Stack } from './stack';
import { registerSearchAttributes } from './temporal';

type App = Awaited<ReturnType<typeof buildApp>>;

/**
 * `npm start`: the stores (embedded or configured), migrations, the Temporal worker and the API,
 * in that order; Ctrl-C stops them all in reverse.
 */
async function main() {
  const config = loadConfigOrExit();
  const log = createLogger(config.LOG_LEVEL);
  progress(`data directory: ${config.DATA_DIR} (environment: ${config.SERVICE_ENVIRONMENT})`);
  const stack = await startStack(config);
  const running: { services?: Services; worker?: RunningWorker; app?: App } = {};
  const stopAll = async () => {
    await running.app?.close();
    await running.worker?.shutdown().catch(() => undefined);
    await running.services?.close();
    await stack.stop();
  };
  closeWithGrace({ delay: 30_000 }, async ({ signal, err }) => {
    if (err) log.error({ err }, 'stopping after an error');
    progress(`stopping${signal ? ` on ${signal}` : ''}…`);
    await stopAll();
    progress('stopped');
  });
  try {
    await bringUp(config, stack, running);
  } catch (err) {
    await stopAll(); // leave nothing running behind a failed start
    throw err;
  }
  if (stack.endpoints.temporalUiUrl) progress(`temporal web UI: ${stack.endpoints.temporalUiUrl}`);
  progress('ready; Ctrl-C stops everything');

  async function bringUp(cfg: Readonly<Config>, s: Stack, r: typeof running) {
    const services = (r.services = await connectServices(cfg, s.endpoints, log));
    progress('migrations: applying…');
    const applied = await migrateToLatest(services.db);
    progress(`migrations: ${applied.length ? `applied ${applied.join(', ')}` : 'schema up to date'}`);
    await ensureBucket(services.store, cfg.S3_REGION);
    await registerSearchAttributes(s.endpoints.temporalAddress, s.endpoints.temporalNamespace);
    writeStackFile(cfg.DATA_DIR, s.endpoints);
    if (cfg.RUN_WORKER) {
      progress(`worker: starting on task queue ${cfg.TEMPORAL_TASK_QUEUE}…`);
      r.worker = await startWorker({ deps: services, endpoints: s.endpoints, taskQueue: cfg.TEMPORAL_TASK_QUEUE });
      r.worker.done.catch((e) => {
        log.error({ err: e }, 'worker stopped unexpectedly');
        process.kill(process.pid, 'SIGTERM');
      });
      progress('worker: running');
    }
    if (cfg.RUN_API) {
      r.app = await buildApp(services);
      await r.app.listen({ port: cfg.PORT, host: cfg.HOST });
      progress(
        `api: http://${cfg.HOST === '0.0.0.0' ? '127.0.0.1' : cfg.HOST}:${cfg.PORT} (/submission/beta, /distribution/beta, /health)`,
      );
    }
  }
}

main().catch((err) => {
  progress(`start-up failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
