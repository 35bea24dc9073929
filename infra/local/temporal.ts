import net from 'node:net';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { msToTs, tsToMs } from '@temporalio/common';
import { requireFreePort, startProcess, stopLeftover, waitUntilReady } from './child-process';
import { ensureGoBinary, TEMPORAL_CLI } from './go-binaries';

export interface RunningTemporal {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

/** Whether something accepts TCP connections on this loopback port. */
function portAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function temporalAnswers(address: string, namespace = 'default'): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 2000 });
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } finally {
    await connection.close();
  }
}

/**
 * Sets how long the namespace keeps a closed workflow's history (TEMPORAL_NAMESPACE_RETENTION_DAYS)
 * when it is not that already: the dev server creates its namespace with a retention of its own
 * choosing, and a cluster's `temporal operator namespace create` with another. Open workflows are
 * never affected; a closed one is deleted this long after it closed.
 */
export async function setNamespaceRetention(address: string, namespace: string, days: number): Promise<void> {
  const connection = await Connection.connect({ address, connectTimeout: 2000 });
  try {
    const ms = days * 86_400_000;
    const { config } = await connection.workflowService.describeNamespace({ namespace });
    if (tsToMs(config?.workflowExecutionRetentionTtl) === ms) return;
    await connection.workflowService.updateNamespace({ namespace, config: { workflowExecutionRetentionTtl: msToTs(ms) } });
  } finally {
    await connection.close();
  }
}

/*
 * The dev server's defaults suit a laptop demo, not a checkout path: measured per order they cost
 * more than the order's own transaction (issue 11). Each value below is why it is set; the data
 * stays in the SQLite file, durable across a crash of the server or of anything else.
 */
const DEV_SERVER_TUNING = [
  // Write-ahead log instead of the rollback journal: a commit appends to one file instead of
  // copying pages aside first, and readers no longer block the writer.
  '--sqlite-pragma',
  'journal_mode=wal',
  // In WAL mode, NORMAL syncs at checkpoints instead of on every commit. A crash of the server
  // process loses nothing (the WAL is in the OS's hands once written); only a power loss or
  // kernel crash can drop the last commits, which a local stack accepts.
  '--sqlite-pragma',
  'synchronous=normal',
  // The CLI turns this on so that search attributes added at run time are visible at once; it
  // costs 5 cluster-metadata and 2 namespace reads per order. Ours are registered at boot
  // (--search-attribute below); one added later (registerSearchAttributes on an old data dir)
  // becomes visible at the server's next cache refresh instead.
  '--dynamic-config-value',
  'system.forceSearchAttributesCacheRefreshOnRead=false',
  // One partition per task queue: with the default 4, a task often lands on a partition whose
  // poller is elsewhere and goes through matching's stored backlog. One server process gains
  // nothing from partitions.
  '--dynamic-config-value',
  'matching.numTaskqueueReadPartitions=1',
  '--dynamic-config-value',
  'matching.numTaskqueueWritePartitions=1',
];

/** The official Temporal CLI dev server: a real Temporal server persisting to a SQLite file in DATA_DIR. */
export async function startTemporalDevServer(opts: {
  dataDir: string;
  port: number;
  uiPort: number;
  namespace: string;
  /** How long the namespace keeps closed workflows' histories (setNamespaceRetention); unset: the dev server's own choice. */
  retentionDays?: number;
  /** Keyword search attributes the server knows from its first start (the worker's workflows upsert them). */
  keywordSearchAttributes: readonly string[];
}): Promise<RunningTemporal> {
  const binary = await ensureGoBinary(TEMPORAL_CLI);
  const pidFile = path.join(opts.dataDir, 'temporal.pid');
  await stopLeftover(pidFile);
  await requireFreePort(opts.port, 'TEMPORAL_DEV_PORT', 'the Temporal dev server');
  await requireFreePort(opts.uiPort, 'TEMPORAL_UI_PORT', "the Temporal dev server's Web UI");
  const proc = startProcess({
    name: 'temporal',
    command: binary,
    args: [
      'server',
      'start-dev',
      '--db-filename',
      path.join(opts.dataDir, 'temporal.db'),
      '--ip',
      '127.0.0.1',
      '--port',
      String(opts.port),
      '--ui-port',
      String(opts.uiPort),
      '--namespace',
      opts.namespace,
      '--log-level',
      'warn',
      ...opts.keywordSearchAttributes.flatMap((name) => ['--search-attribute', `${name}=Keyword`]),
      ...DEV_SERVER_TUNING,
    ],
    logDir: path.join(opts.dataDir, 'logs'),
    pidFile,
  });
  const address = `127.0.0.1:${opts.port}`;
  // Until the port accepts a connection, a plain TCP connect says so for a fraction of what a gRPC
  // client costs to set up; the readiness poll is frequent.
  await waitUntilReady(proc, async () => (await portAccepts(opts.port)) && temporalAnswers(address, opts.namespace), 120_000);
  if (opts.retentionDays !== undefined) await setNamespaceRetention(address, opts.namespace, opts.retentionDays);
  return { address, uiUrl: `http://127.0.0.1:${opts.uiPort}`, stop: () => proc.stop() };
}
