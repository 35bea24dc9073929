import crypto from 'node:crypto';
import type { ServiceDeps } from './deps';
import {
  claimIdempotencyKey,
  endIdempotencyClaim,
  listenForIdempotencyKey,
  type Claim,
  type ClaimedKey,
  type StoredAnswer,
} from '../store/idempotency-keys';
import { IDEMPOTENCY_REPLAY_SECONDS, idempotencyRequestText } from '../domain/idempotency';

export type { Claim, ClaimedKey, StoredAnswer };

/**
 * A claim older than this is taken to belong to a process that died mid-request (no answer will
 * come): the same request may then run again. Longer than any request runs (REQUEST_TIMEOUT bounds
 * the arrival; the slowest routes wait for a workflow for seconds).
 */
export const IDEMPOTENCY_STALE_SECONDS = 300;

export const claimKey = (deps: Pick<ServiceDeps, 'db'>, r: ClaimedKey): Promise<Claim> =>
  claimIdempotencyKey(deps.db, { ...r, ttlSeconds: IDEMPOTENCY_REPLAY_SECONDS, staleSeconds: IDEMPOTENCY_STALE_SECONDS });

/**
 * Claims the key; while the same request still runs elsewhere, waits (at most `waitMs`) for that
 * claim to end, woken by its notification, never by polling. Answers the last claim's outcome:
 * still `in_progress` after the wait, or when no notification can come (the listening connection
 * is down).
 */
export async function claimKeyWaiting(deps: Pick<ServiceDeps, 'db'>, r: ClaimedKey, waitMs: number): Promise<Claim> {
  const first = await claimKey(deps, r);
  if (first.kind !== 'in_progress') return first;
  const deadline = Date.now() + waitMs;
  let wake = (): void => undefined;
  const listener = await listenForIdempotencyKey(deps.db, r.clientId, r.key, () => wake()).catch(() => undefined);
  if (!listener) return first;
  try {
    for (;;) {
      // Armed before the claim: an end committed while it runs still wakes the wait.
      const ended = new Promise<void>((resolve) => (wake = resolve));
      const claim = await claimKey(deps, r);
      const left = deadline - Date.now();
      if (claim.kind !== 'in_progress' || left <= 0 || !listener.alive) return claim;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([ended, new Promise<void>((resolve) => (timer = setTimeout(resolve, left)))]);
      clearTimeout(timer);
    }
  } finally {
    await listener.close();
  }
}

/** Ends the claim: with an answer, kept for replays; without one, the key given up (`endIdempotencyClaim`). */
export const endClaim = (deps: Pick<ServiceDeps, 'db'>, r: ClaimedKey, answer?: StoredAnswer) => endIdempotencyClaim(deps.db, r, answer);

/** The hash a key's row keeps of the request it names (`idempotencyRequestText`). */
export const idempotencyRequestHash = (method: string, path: string, body: unknown): string =>
  crypto
    .createHash('sha256')
    .update(idempotencyRequestText(method, path, body))
    .digest('hex');
