import { pingDatabase } from '../store/health';
import type { ServiceDeps } from './deps';

const CHECK_TIMEOUT_MS = 2000;

export type BackendState = 'up' | 'down';

async function check(probe: () => Promise<unknown>): Promise<BackendState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('timeout')), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([probe(), timeout]);
    return 'up';
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}

/** Whether each backend answers (within two seconds): Postgres, Temporal and the object store, asked at once. */
export async function backendChecks(
  deps: Pick<ServiceDeps, 'db' | 'temporal' | 'store'>,
): Promise<{ postgres: BackendState; temporal: BackendState; object_store: BackendState }> {
  const [postgres, temporal, object_store] = await Promise.all([
    check(() => pingDatabase(deps.db)),
    check(() => deps.temporal.workflowService.getSystemInfo({})),
    check(() => deps.store.client.bucketExists(deps.store.bucket)),
  ]);
  return { postgres, temporal, object_store };
}
