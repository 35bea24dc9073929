import crypto from 'node:crypto';
import type { ServiceDeps } from './deps';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  type Claim,
  type StoredAnswer,
} from '../store/idempotency-keys';
import { IDEMPOTENCY_REPLAY_SECONDS, idempotencyRequestText } from '../domain/idempotency';

export type { Claim, StoredAnswer };

/**
 * A claim older than this is taken to belong to a process that died mid-request (no answer will
 * come): the same request may then run again. Longer than any request runs (REQUEST_TIMEOUT bounds
 * the arrival; the slowest routes wait for a workflow for seconds).
 */
export const IDEMPOTENCY_STALE_SECONDS = 300;

/** One client's key as the API layer holds it while a request runs. */
export interface KeyedRequest {
  clientId: string;
  key: string;
  requestHash: string;
}

export const claimKey = (deps: Pick<ServiceDeps, 'db'>, r: KeyedRequest): Promise<Claim> =>
  claimIdempotencyKey(deps.db, { ...r, ttlSeconds: IDEMPOTENCY_REPLAY_SECONDS, staleSeconds: IDEMPOTENCY_STALE_SECONDS });

export const completeKey = (deps: Pick<ServiceDeps, 'db'>, r: KeyedRequest, answer: StoredAnswer) =>
  completeIdempotencyKey(deps.db, r.clientId, r.key, r.requestHash, answer);

export const releaseKey = (deps: Pick<ServiceDeps, 'db'>, r: KeyedRequest) =>
  releaseIdempotencyKey(deps.db, r.clientId, r.key, r.requestHash);

/** The hash a key's row keeps of the request it names (`idempotencyRequestText`). */
export const idempotencyRequestHash = (method: string, path: string, body: unknown): string =>
  crypto
    .createHash('sha256')
    .update(idempotencyRequestText(method, path, body))
    .digest('hex');
