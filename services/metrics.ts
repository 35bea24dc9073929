import type { ServiceDeps } from './deps';
import type { QueueSnapshot } from '../platform/metrics';
import type { PrunedTableSnapshot } from '../platform/retention-metrics';
import { callbackLagByEndpoint } from '../store/callback-deliveries';
import { reviewQueueStats } from '../store/review-queue';
import { estimatedRowCounts, oldestRowAge } from '../store/table-stats';

/** What /metrics reads from the database on each scrape: two cheap aggregate queries, run together. */
export async function queueSnapshot(deps: Pick<ServiceDeps, 'db'>): Promise<QueueSnapshot> {
  const [reviewQueue, callbackLag] = await Promise.all([reviewQueueStats(deps.db), callbackLagByEndpoint(deps.db)]);
  return { reviewQueue, callbackLag };
}

/**
 * The tables the pruning schedule keeps in check (docs/data-retention.md), each with the column its
 * oldest row is found by, through an index (offer_events_created, callback_deliveries_created,
 * callback_attempts_started).
 */
const PRUNED_TABLES = {
  offer_events: 'created_at',
  callback_deliveries: 'created_at',
  callback_attempts: 'started_at',
} as const;

/** Each pruned table's rows (estimated: store/table-stats.ts) and its oldest row's age: one catalogue read and three index reads. */
export async function prunedTablesSnapshot(deps: Pick<ServiceDeps, 'db'>): Promise<PrunedTableSnapshot[]> {
  const tables = Object.keys(PRUNED_TABLES) as (keyof typeof PRUNED_TABLES)[];
  const [rows, ages] = await Promise.all([
    estimatedRowCounts(deps.db, tables),
    Promise.all(tables.map((t) => oldestRowAge(deps.db, t, PRUNED_TABLES[t]))),
  ]);
  return tables.map((table, i) => ({ table, rows: rows[table] ?? 0, oldestAgeSeconds: ages[i] ?? 0 }));
}
