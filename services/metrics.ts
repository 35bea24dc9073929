import type { ServiceDeps } from './deps';
import type { QueueSnapshot } from '../platform/metrics';
import { callbackLagByEndpoint } from '../store/callback-deliveries';
import { reviewQueueStats } from '../store/review-queue';

/** What /metrics reads from the database on each scrape: two cheap aggregate queries, run together. */
export async function queueSnapshot(deps: Pick<ServiceDeps, 'db'>): Promise<QueueSnapshot> {
  const [reviewQueue, callbackLag] = await Promise.all([reviewQueueStats(deps.db), callbackLagByEndpoint(deps.db)]);
  return { reviewQueue, callbackLag };
}
