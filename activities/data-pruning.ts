import type { ActivityDeps } from './deps';
import { FEED_PRUNE_GRACE_SECONDS } from '../domain/event-feed';
import { pruneFinishedDeliveries } from '../store/callback-deliveries';
import { numberCommittedEvents, pruneFeedEvents as pruneFeedPrefix } from '../store/event-feed';
import { markVoucherExportFilesPruned, voucherExportFilesDue } from '../store/voucher-exports';
import { markVoucherImportFilesPruned, voucherImportFilesDue } from '../store/voucher-imports';
import { pruneIdempotencyKeys } from '../store/idempotency-keys';

const DAY_SECONDS = 86_400;

/**
 * The steps of the data-pruning and idempotency-key pruning schedules (docs/data-retention.md).
 * Each is idempotent: deleting what has outlived its retention twice deletes nothing more, and
 * numbering numbers only what has no place.
 */
export function createDataPruningActivities(deps: Pick<ActivityDeps, 'db' | 'config' | 'store'>) {
  return {
    /** Deletes up to `limit` expired idempotency keys; answers how many. */
    async pruneIdempotencyKeys(a: { limit: number }): Promise<number> {
      return pruneIdempotencyKeys(deps.db, a.limit);
    },
    /** Gives every committed event without a feed position its place (as a feed read does). */
    async numberFeedEvents(): Promise<void> {
      await numberCommittedEvents(deps.db);
    },
    /** Deletes up to `limit` finished deliveries past CALLBACK_DELIVERY_RETENTION_DAYS, with their attempts; answers how many. */
    async pruneCallbackDeliveries(a: { limit: number }): Promise<number> {
      return pruneFinishedDeliveries(deps.db, { keepSeconds: deps.config.CALLBACK_DELIVERY_RETENTION_DAYS * DAY_SECONDS, limit: a.limit });
    },
    /** Deletes up to `limit` events from the bottom of the feed, past its window and the grace; answers how many. */
    async pruneFeedEvents(a: { limit: number }): Promise<number> {
      const keepSeconds = deps.config.FEED_RETENTION_DAYS * DAY_SECONDS + FEED_PRUNE_GRACE_SECONDS;
      return pruneFeedPrefix(deps.db, { keepSeconds, limit: a.limit });
    },
    /**
     * Deletes the stored files of up to `limit` imports and exports finished more than
     * BULK_FILES_RETENTION_DAYS ago (exports first), then marks them; answers how many. A retry
     * deletes the same keys again, which the object store answers as done.
     */
    async pruneBulkFiles(a: { limit: number }): Promise<number> {
      const keepSeconds = deps.config.BULK_FILES_RETENTION_DAYS * DAY_SECONDS;
      const exports = await voucherExportFilesDue(deps.db, { keepSeconds, limit: a.limit });
      const imports =
        exports.length < a.limit ? await voucherImportFilesDue(deps.db, { keepSeconds, limit: a.limit - exports.length }) : [];
      // One DELETE per key: S3 answers a missing key (a failed export that wrote nothing) as deleted.
      for (const f of [...exports, ...imports]) await deps.store.client.removeObject(deps.store.bucket, f.key);
      await markVoucherExportFilesPruned(
        deps.db,
        exports.map((f) => f.id),
      );
      await markVoucherImportFilesPruned(
        deps.db,
        imports.map((f) => f.id),
      );
      return exports.length + imports.length;
    },
  };
}
