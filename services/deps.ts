import type { Client } from '@temporalio/client';
import type { Config } from '../infra/config';
import type { Db } from '../store/db';
import type { LocalWorker } from '../infra/local-worker';
import type { Logger } from '../infra/logger';
import type { BusinessMetrics } from '../infra/metrics';
import type { ObjectStore } from '../infra/object-store';

/** What the API needs from the outside world, built once by infra/services.ts. */
export interface ServiceDeps {
  config: Readonly<Config>;
  db: Db;
  temporal: Client;
  store: ObjectStore;
  log: Logger;
  /** The business counters this process exposes on /metrics (infra/metrics.ts). */
  metrics: BusinessMetrics;
  /** The Temporal Web UI's base address (TEMPORAL_UI_URL, or the dev server's), for links to workflows. */
  temporalUiUrl?: string;
  /** What this process shares with a worker running in it (eager order starts; infra/local-worker.ts). */
  localWorker?: LocalWorker;
}
