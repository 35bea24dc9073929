import crypto from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import { buildApp } from '../../api/app';
import type { ApiInterface } from '../../domain/environment';
import { createApiKey } from '../../services/api-clients';
import { loadConfig, type Config } from '../../platform/config';
import type { FixedSettings } from '../../platform/config-fixed';
import { addOperator } from '../../services/operators';
import { createLogger } from '../../platform/logger';
import { connectServices, type Services } from '../../main';
import { resolveEndpoints } from '../../platform/endpoints';
import { startWorker, type RunningWorker } from '../../worker/main';

type KeyOptions = { reservations?: boolean; environment?: 'sandbox' | 'production'; name?: string };

export interface Harness {
  config: Readonly<Config>;
  services: Services;
  app: FastifyInstance;
  worker?: RunningWorker;
  /** A fresh API client of the deployment's environment; returns its key. */
  key(iface: ApiInterface, opts?: KeyOptions): Promise<string>;
  /** The same, returning the client id too (for fixtures written straight to the database). */
  client(iface: ApiInterface, opts?: KeyOptions): Promise<{ key: string; clientId: string }>;
  startWorker(): Promise<RunningWorker>;
  /**
   * Adds an operator of the review console (the operators table) and returns their Basic
   * authorization header; removed at close. Names are the suite's: each test file uses its own.
   */
  operator(name: string, password: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * The API (and optionally a worker) wired to the suite's real stack, on a task queue of this
 * test file's own. `env` overrides settings, e.g. SERVICE_ENVIRONMENT=production; `fixed` shortens
 * fixed values (platform/config-fixed.ts) or plain HTTP in production (REQUIRE_HTTPS); `logStream`
 * receives the log (the one logger, at LOG_LEVEL) instead of stdout.
 */
export async function createHarness(
  opts: {
    worker?: boolean;
    env?: Record<string, string>;
    fixed?: Partial<FixedSettings & Pick<Config, 'REQUIRE_HTTPS'>>;
    logStream?: DestinationStream;
  } = {},
): Promise<Harness> {
  const config = {
    ...loadConfig({ ...process.env, TEMPORAL_TASK_QUEUE: `test-${crypto.randomUUID()}`, ...opts.env }),
    ...opts.fixed,
  };
  const log = createLogger(config.LOG_LEVEL, { stream: opts.logStream });
  const services = await connectServices(config, resolveEndpoints(config), log);
  const app = await buildApp(services);
  await app.ready();
  const operators: string[] = [];
  const h: Harness = {
    config,
    services,
    app,
    client: (iface, o = {}) =>
      createApiKey(services, {
        iface,
        environment: o.environment ?? config.SERVICE_ENVIRONMENT,
        reservations: o.reservations,
        name: o.name,
      }),
    key: async (iface, o = {}) => (await h.client(iface, o)).key,
    startWorker: async () =>
      (h.worker = await startWorker({
        deps: services,
        endpoints: resolveEndpoints(config),
        taskQueue: config.TEMPORAL_TASK_QUEUE,
        workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH,
        tracing: services.tracing,
      })),
    async operator(name, password) {
      // A run that crashed may have left the name behind.
      await services.db.deleteFrom('operators').where('name', '=', name).execute();
      await addOperator(services, name, password);
      operators.push(name);
      return `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;
    },
    async close() {
      if (operators.length) await services.db.deleteFrom('operators').where('name', 'in', operators).execute();
      await h.worker?.shutdown();
      await app.close();
      await services.close();
    },
  };
  if (opts.worker) await h.startWorker();
  return h;
}

/**
 * What most journey tests start from: a harness with a worker, a distribution key (enabled for
 * reservations when asked) and a submission client.
 */
export async function harnessWithKeys(
  opts: { reservations?: boolean } = {},
): Promise<{ h: Harness; dist: string; sub: { key: string; clientId: string } }> {
  const h = await createHarness({ worker: true });
  return { h, dist: await h.key('distribution', { reservations: opts.reservations }), sub: await h.client('submission') };
}
