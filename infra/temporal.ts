import path from 'node:path';
import { Connection } from '@temporalio/client';
import { startProcess, stopLeftover, waitUntilReady } from './child-process';
import { ensureGoBinary, TEMPORAL_CLI } from './go-binaries';

export interface RunningTemporal {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

/**
 * Search attributes the workflows set, registered by the stack at start so operators can filter
 * with `temporal workflow list --query "OfferStatus='pending'"`.
 */
export const SEARCH_ATTRIBUTES = ['OfferStatus=Keyword', 'AdvertiserName=Keyword', 'OfferType=Keyword'];

export async function temporalAnswers(address: string, namespace = 'default'): Promise<boolean> {
  const connection = await Connection.connect({ address, connectTimeout: 2000 });
  try {
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } finally {
    await connection.close();
  }
}

/** The official Temporal CLI dev server: a real Temporal server persisting to a SQLite file in DATA_DIR. */
export async function startTemporalDevServer(opts: { dataDir: string; port: number; uiPort: number; namespace: string }): Promise<RunningTemporal> {
  const binary = await ensureGoBinary(TEMPORAL_CLI);
  const pidFile = path.join(opts.dataDir, 'temporal.pid');
  await stopLeftover(pidFile);
  const proc = startProcess({
    name: 'temporal',
    command: binary,
    args: [
      'server', 'start-dev',
      '--db-filename', path.join(opts.dataDir, 'temporal.db'),
      '--ip', '127.0.0.1',
      '--port', String(opts.port),
      '--ui-port', String(opts.uiPort),
      '--namespace', opts.namespace,
      '--log-level', 'warn',
      ...SEARCH_ATTRIBUTES.flatMap((a) => ['--search-attribute', a]),
    ],
    logDir: path.join(opts.dataDir, 'logs'),
    pidFile,
  });
  const address = `127.0.0.1:${opts.port}`;
  await waitUntilReady(proc, () => temporalAnswers(address, opts.namespace), 120_000);
  return { address, uiUrl: `http://127.0.0.1:${opts.uiPort}`, stop: () => proc.stop() };
}
