import type { ServiceDeps } from './deps';
import type { QueueSnapshot } from '../platform/metrics';
import type { PrunedTableSnapshot } from '../platform/retention-metrics';
import { callbackLagByEndpoint, oldestDeliveryAge } from '../store/callback-deliveries';
import { oldestAttemptAge } from '../store/callback-attempts';
import { oldestOfferEventAge } from '../store/offer-events';
import { reviewQueueStats } from '../store/review-queue';
import { estimatedRowCounts } from '../store/table-stats';

/** What /metrics reads from the database on each scrape: two cheap aggregate queries, run together. */
export async function queueSnapshot(deps: Pick<ServiceDeps, 'db'>): Promise<QueueSnapshot> {
  const [reviewQueue, callbackLag] = await Promise.all([reviewQueueStats(deps.db), callbackLagByEndpoint(deps.db)]);
  return { reviewQueue, callbackLag };
}

/** The tables the pruning schedule keeps in check (docs/data-retention.md), with how each finds its oldest row through an index. */
const PRUNED_TABLES = {
  offer_events: oldestOfferEventAge,
  callback_deliveries: oldestDeliveryAge,
  callback_attempts: oldestAttemptAge,
} as const;

/** Each pruned table's rows (estimated: store/table-stats.ts) and its oldest row's age: one catalogue read and three index reads. */
export async function prunedTablesSnapshot(deps: Pick<ServiceDeps, 'db'>): Promise<PrunedTableSnapshot[]> {
  const tables = Object.keys(PRUNED_TABLES) as (keyof typeof PRUNED_TABLES)[];
  const [rows, ages] = await Promise.all([estimatedRowCounts(deps.db, tables), Promise.all(tables.map((t) => PRUNED_TABLES[t](deps.db)))]);
  return tables.map((table, i) => ({ table, rows: rows[table] ?? 0, oldestAgeSeconds: ages[i] ?? 0 }));
}
