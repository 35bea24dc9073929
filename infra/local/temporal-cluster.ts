import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../platform/free-port';
import { progress } from '../../platform/logger';
import { startProcess, stopLeftover, waitUntilReady, type ManagedProcess } from './child-process';
import { ensureGoBinary, TEMPORAL_CLI, TEMPORAL_SERVER } from './go-binaries';
import { persistedSecret } from './secrets';
import { portAccepts } from './temporal';
import {
  CLUSTER_SERVER_NAME,
  clusterConfig,
  clusterDatabaseNames,
  clusterServices,
  TEMPORAL_SERVICES,
  type ClusterCertificates,
  type ClusterDatabase,
  type ClusterPorts,
  type ServerService,
  type TemporalService,
} from './temporal-cluster-config';
import { prepareClusterDatabases } from './temporal-cluster-schema';
import { waitFor } from '../../platform/wait-for';

const run = promisify(execFile);

export interface RunningCluster {
  /** The frontend's address. */
  address: string;
  /**
   * What a client needs to reach the cluster, as Temporal's environment configuration names it
   * (read by the service's connections, the Temporal CLI and every SDK): address, namespace, mTLS
   * files (with API keys on: the server's CA alone; each client brings its own TEMPORAL_API_KEY).
   */
  clientEnv: Record<string, string>;
  /** SIGKILL one service's process (with `oneProcess`, the server's), as a crash or the OOM killer would. */
  kill(service: TemporalService): void;
  /** Starts a service again (after `kill`), resolving once it listens. */
  restart(service: TemporalService): Promise<void>;
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** Its config file, pid files and logs (logs/temporal-<service>.log) go here. */
  dataDir: string;
  /** A Postgres URL whose user may create roles and databases (the embedded Postgres' superuser). */
  postgresUrl: string;
  certificates: ClusterCertificates;
  namespace: string;
  /** How long a closed workflow's history is kept (the namespace's retention), e.g. `72h`. */
  retention: string;
  /** Keyword search attributes registered on the namespace before any client connects. */
  keywordSearchAttributes: readonly string[];
  /** See ClusterConfigOptions.jwtKeySourceUri. */
  jwtKeySourceUri?: string;
  /** With jwtKeySourceUri: the API key (a JWT with `temporal-system:admin`) the namespace and search attributes are made with. */
  operatorApiKey?: string;
  /** Names its database role and databases (default `temporal`), so that a second cluster can share one Postgres. */
  name?: string;
  /** All services in one server process: a second, small cluster for a test, started in a few seconds. */
  oneProcess?: boolean;
}

/** The start-up of four services on a shared machine: each loads the whole server (~150 MB) and joins the ring. */
const START_MS = 180_000;

async function clusterPorts(services: ServerService[]): Promise<ClusterPorts> {
  const ports = {} as ClusterPorts;
  for (const s of services) ports[s] = { grpc: await freePort(), membership: await freePort() };
  return ports;
}

function adminDatabase(url: string): ClusterDatabase {
  const u = new URL(url);
  return { host: u.hostname, port: Number(u.port || 5432), user: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
}

/** The client side of Temporal's environment configuration for this cluster (the same names @temporalio/envconfig reads). */
export function clusterClientEnv(address: string, namespace: string, c: ClusterCertificates, apiKeys = false): Record<string, string> {
  const certificate: Record<string, string> = apiKeys
    ? {}
    : { TEMPORAL_TLS_CLIENT_CERT_PATH: c.clientCert, TEMPORAL_TLS_CLIENT_KEY_PATH: c.clientKey };
  return {
    TEMPORAL_ADDRESS: address,
    TEMPORAL_NAMESPACE: namespace,
    ...certificate,
    TEMPORAL_TLS_SERVER_CA_CERT_PATH: c.caCert,
    TEMPORAL_TLS_SERVER_NAME: CLUSTER_SERVER_NAME,
  };
}

/**
 * A real Temporal server, as an operator runs one: its two databases and schemas in the given
 * Postgres, then frontend, history, matching and worker as four processes of the server binary,
 * mTLS between them and at the frontend; then the namespace (with its retention) and the search
 * attributes, made with the Temporal CLI over mTLS as an operator would. docs/deployment.md
 * ("A self-hosted Temporal cluster") lists the same steps.
 */
export async function startTemporalCluster(o: ClusterOptions): Promise<RunningCluster> {
  const [server, cli] = await Promise.all([ensureGoBinary(TEMPORAL_SERVER), ensureGoBinary(TEMPORAL_CLI)]);
  const sqlBinary = path.join(path.dirname(server), 'sql');
  const admin = adminDatabase(o.postgresUrl);
  const name = o.name ?? 'temporal';
  const databases = clusterDatabaseNames(name);
  const database = { ...admin, user: name, password: persistedSecret(o.dataDir, 'temporal-db-password') };
  progress('temporal cluster: databases and schemas…');
  await prepareClusterDatabases(sqlBinary, admin, database, databases);

  const services = clusterServices(o);
  const ports = await clusterPorts(services);
  const configFile = path.join(o.dataDir, 'temporal-cluster.yaml');
  const dynamicConfigFile = path.join(o.dataDir, 'temporal-dynamic-config.yaml');
  fs.writeFileSync(dynamicConfigFile, '{}\n');
  const config = clusterConfig({
    ports,
    database,
    databases,
    certificates: o.certificates,
    dynamicConfigFile,
    jwtKeySourceUri: o.jwtKeySourceUri,
  });
  fs.writeFileSync(configFile, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 }); // it holds the database password

  const procs = new Map<TemporalService, ManagedProcess>();
  // One process per service, or (oneProcess) one for all, named and keyed after the frontend.
  const startService = async (s: TemporalService) => {
    const group = o.oneProcess ? services : [s];
    const pidFile = path.join(o.dataDir, `temporal-${o.oneProcess ? 'server' : s}.pid`);
    await stopLeftover(pidFile);
    const proc = startProcess({
      name: `temporal-${o.oneProcess ? 'server' : s}`,
      command: server,
      // No authorizer unless API keys are on: mTLS (a certificate from the cluster's CA) is the gate.
      args: [
        '--config-file',
        configFile,
        ...(o.jwtKeySourceUri ? [] : ['--allow-no-auth']),
        'start',
        ...group.flatMap((g) => ['--service', g]),
      ],
      logDir: path.join(o.dataDir, 'logs'),
      pidFile,
    });
    procs.set(s, proc);
    for (const g of group) await waitUntilReady(proc, () => portAccepts(ports[g]!.grpc), START_MS);
  };
  const serviceOf = (s: TemporalService): TemporalService => (o.oneProcess ? 'frontend' : s);
  const stop = async () => {
    // The frontend first (no new calls), the history service last (it finishes its shards' writes).
    for (const s of ['frontend', 'worker', 'matching', 'history'] as const) await procs.get(s)?.stop();
  };
  progress(`temporal cluster: starting ${services.join(', ')}…`);
  try {
    // The frontend first: on a fresh database the first service to start writes the cluster's
    // metadata, and two writing it at once fail on its primary key. Once it listens, the others join.
    await startService('frontend');
    if (!o.oneProcess) await Promise.all(TEMPORAL_SERVICES.filter((s) => s !== 'frontend').map(startService));
    const address = `127.0.0.1:${ports.frontend.grpc}`;
    const clientEnv = clusterClientEnv(address, o.namespace, o.certificates, Boolean(o.jwtKeySourceUri));
    await prepareNamespace(cli, { ...clientEnv, ...(o.operatorApiKey ? { TEMPORAL_API_KEY: o.operatorApiKey } : {}) }, o);
    return {
      address,
      clientEnv,
      kill: (s) => void procs.get(serviceOf(s))?.child.kill('SIGKILL'),
      restart: async (s) => {
        await procs.get(serviceOf(s))?.stop();
        await startService(serviceOf(s));
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The Temporal CLI with the cluster's client environment; answers its stdout, or throws with its output. */
async function temporalCli(cli: string, env: Record<string, string>, args: string[]): Promise<string> {
  const { stdout } = await run(cli, args, { env: { ...process.env, ...env }, maxBuffer: 10 * 1024 * 1024 });
  return stdout;
}

/**
 * The namespace with its retention, and the search attributes; each step is retried while the
 * services are still joining (the frontend answers before history and matching have found it).
 */
async function prepareNamespace(cli: string, env: Record<string, string>, o: ClusterOptions): Promise<void> {
  progress(`temporal cluster: namespace ${o.namespace} (retention ${o.retention}) and search attributes…`);
  const ns = ['--namespace', o.namespace];
  let lastError = '';
  const attempt = (step: () => Promise<unknown>) => async () => {
    try {
      await step();
      return true;
    } catch (err) {
      lastError = String((err as { stderr?: string }).stderr || err);
      return false;
    }
  };
  const steps: Array<[string, () => Promise<unknown>]> = [
    ['cluster health', () => temporalCli(cli, env, ['operator', 'cluster', 'health'])],
    [
      'namespace',
      async () => {
        const exists = await temporalCli(cli, env, ['operator', 'namespace', 'describe', ...ns]).then(
          () => true,
          () => false,
        );
        if (!exists) await temporalCli(cli, env, ['operator', 'namespace', 'create', ...ns, '--retention', o.retention]);
      },
    ],
    [
      'search attributes',
      () =>
        o.keywordSearchAttributes.length
          ? temporalCli(cli, env, [
              'operator',
              'search-attribute',
              'create',
              ...ns,
              ...o.keywordSearchAttributes.flatMap((name) => ['--name', name, '--type', 'Keyword']),
            ])
          : Promise.resolve(),
    ],
  ];
  for (const [name, step] of steps) {
    const deadlineError = () => new Error(`temporal cluster: ${name} did not succeed within 60 s: ${lastError}`);
    await waitFor(`temporal cluster: ${name}`, attempt(step), { deadlineMs: 60_000, deadlineError });
  }
}
