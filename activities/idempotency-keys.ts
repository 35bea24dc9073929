import type { ActivityDeps } from './deps';
import { pruneIdempotencyKeys } from '../store/idempotency-keys';

/** The pruning schedule's step: idempotent (deleting what has expired twice deletes nothing more). */
export function createIdempotencyKeyActivities(deps: Pick<ActivityDeps, 'db'>) {
  return {
    /** Deletes up to `limit` expired keys; answers how many. */
    async pruneIdempotencyKeys(a: { limit: number }): Promise<number> {
      return pruneIdempotencyKeys(deps.db, a.limit);
    },
  };
}
