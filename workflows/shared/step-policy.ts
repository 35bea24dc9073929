import type { RetryPolicy } from '@temporalio/common';

/*
 * How long a workflow step (an activity) is retried before it has failed for good. Issue 19: an
 * edit whose date Postgres refused was retried forever (attempt 22 and counting) and pinned its
 * offer. Two rules now:
 * - what retrying cannot fix fails at once: the worker's interceptor (worker/activity-failures.ts)
 *   turns a domain refusal or a value Postgres refuses into a non-retryable failure of type
 *   REFUSED_FAILURE_TYPE, carrying the refusal in its details; the policy names that type too, so a
 *   step failed that way by other code (or a test double) is not retried either;
 * - the rest (Postgres restarting, a lock timeout) is retried with backoff for about four minutes
 *   (1+2+4+…+60 s over 10 attempts), then the workflow handles the failure and reaches a state the
 *   API reports. Changing a policy is replay-safe: Temporal compares an activity's type, not its options.
 */

/** The failure type of a refusal raised in an activity: `details[0]` is the `Refused` value. */
export const REFUSED_FAILURE_TYPE = 'Refused';

/** Failure types a retry cannot change. */
export const NON_RETRYABLE_TYPES = [REFUSED_FAILURE_TYPE];

/**
 * Pollers, not steps on a request's data: the callback dispatcher's outbox pump. Their retry has
 * no bound and the interceptor never fails them for good (that would stop every callback); a
 * fault of theirs is still logged once and counted past the stuck threshold.
 */
export const POLLER_ACTIVITIES: readonly string[] = ['pumpCallbackOutbox'];

/** Attempts after which an activity counts as stuck (a metric, one log line, `admin workflows stuck`). */
export const STUCK_AFTER_ATTEMPTS = 5;

/** The retry policy of every step: bounded, refusals never retried. */
export const STEP_RETRY: RetryPolicy = {
  initialInterval: '1s',
  backoffCoefficient: 2,
  maximumInterval: '1 minute',
  maximumAttempts: 10,
  nonRetryableErrorTypes: NON_RETRYABLE_TYPES,
};
