/*
 * When a failing callback endpoint is given up on (docs/callbacks.md), and the reason operators
 * read (`callbacks show`, the worker's error log). The data layer keeps the failure streak and
 * applies this rule inside the attempt's transaction (store/callback-attempts.ts).
 */

/** An endpoint's unbroken run of failed attempts, the latest one included. */
export interface FailureStreak {
  /** When the first failed attempt of the run started. */
  since: Date;
  /** Failed attempts in a row. */
  count: number;
  /** The latest attempt's error. */
  lastError: string | null;
}

/**
 * Why the endpoint is disabled now, or null while it keeps being tried: once every attempt has
 * failed for `disableAfterSeconds` (CALLBACK_DISABLE_AFTER_SECONDS), it is disabled.
 */
export function disableReason(streak: FailureStreak, disableAfterSeconds: number, now: Date): string | null {
  if (now.getTime() - streak.since.getTime() < disableAfterSeconds * 1000) return null;
  return `every attempt failed since ${streak.since.toISOString()} (${streak.count} in a row; last: ${streak.lastError})`;
}
