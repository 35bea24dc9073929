import type { Client } from '@temporalio/client';
import type { Config } from '../platform/config';
import type { Db } from '../store/db';
import type { Logger } from '../platform/logger';
import type { BusinessMetrics } from '../platform/metrics';
import type { ObjectStore } from '../platform/object-store';
import type { RateLimitCounts } from '../store/rate-limits';

export type { RateLimitCounts, WindowCount } from '../store/rate-limits';

/** What the API needs from the outside world, built once by main/wiring.ts. */
export interface ServiceDeps {
  config: Readonly<Config>;
  db: Db;
  temporal: Client;
  store: ObjectStore;
  log: Logger;
  /** The business counters this process exposes on /metrics (platform/metrics.ts). */
  metrics: BusinessMetrics;
  /** The rate limit's counts, in the Postgres every API process shares (store/rate-limits.ts). */
  rateLimits: RateLimitCounts;
  /** The Temporal Web UI's base address (TEMPORAL_UI_URL, or the dev server's), for links to workflows. */
  temporalUiUrl?: string;
}
