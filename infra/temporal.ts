import path from 'node:path';
import { Connection } from '@temporalio/client';
import { startProcess, stopLeftover, waitUntilReady } from './child-process';
import { ensureGoBinary, TEMPORAL_CLI } from './go-binaries';

export interface RunningTemporal {
  address: string;
  uiUrl: string;
  stop(): Promise<void>;
}

import { temporal } from '@temporalio/proto';
import { OFFER_SEARCH_ATTRIBUTES } from '../workflows/shared/search-attributes';

/**
 * Registers the workflows' search attributes on any cluster (idempotent), so operators can
 * filter with `temporal workflow list --query "OfferStatus='pending'"`.
 */
export async function registerSearchAttributes(address: string, namespace: string): Promise<void> {
  const connection = await Connection.connect({ address });
  try {
    const { customAttributes } = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = OFFER_SEARCH_ATTRIBUTES.filter((k) => !customAttributes?.[k.name]);
    if (missing.length === 0) return;
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((k) => [k.name, temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD])),
    });
  } finally {
    await connection.close();
  }
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

/** The official Temporal CLI dev server: a real Temporal server persisting to a SQLite file in DATA_DIR. */
export async function startTemporalDevServer(opts: {
  dataDir: string;
  port: number;
  uiPort: number;
  namespace: string;
}): Promise<RunningTemporal> {
  const binary = await ensureGoBinary(TEMPORAL_CLI);
  const pidFile = path.join(opts.dataDir, 'temporal.pid');
  await stopLeftover(pidFile);
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
      ...OFFER_SEARCH_ATTRIBUTES.flatMap((k) => ['--search-attribute', `${k.name}=Keyword`]),
    ],
    logDir: path.join(opts.dataDir, 'logs'),
    pidFile,
  });
  const address = `127.0.0.1:${opts.port}`;
  await waitUntilReady(proc, () => temporalAnswers(address, opts.namespace), 120_000);
  return { address, uiUrl: `http://127.0.0.1:${opts.uiPort}`, stop: () => proc.stop() };
}
