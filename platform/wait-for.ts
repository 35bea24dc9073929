/** How long to wait at most; `firstMs` is the first pause (50 ms unless told), `maxMs` caps the pause between looks (1 s unless told). */
export interface WaitOptions {
  deadlineMs: number;
  firstMs?: number;
  maxMs?: number;
  /** The error thrown at the deadline, when the caller can say more than `what` (the last state seen). */
  deadlineError?: () => Error;
}

/**
 * The one wait on what sends no event (Temporal's worker deployment state, another process's exit,
 * a file another process writes, an order intake run that is starting): asks `check` until it answers
 * neither undefined nor false, pausing `firstMs` and then twice as long each time up to `maxMs`; throws an error naming `what` at the deadline.
 * An error `check` throws ends the wait at once (a check catches what is worth asking again).
 * Wherever an event exists (a notification, an Update's result, a child's exit), wait on it instead.
 */
export async function waitFor<T>(
  what: string,
  check: () => T | undefined | false | Promise<T | undefined | false>,
  { deadlineMs, firstMs = 50, maxMs = 1_000, deadlineError }: WaitOptions,
): Promise<T> {
  const giveUpAt = Date.now() + deadlineMs;
  for (let pause = firstMs; ; pause = Math.min(pause * 2, maxMs)) {
    const answer = await check();
    if (answer !== undefined && answer !== false) return answer;
    const left = giveUpAt - Date.now();
    if (left <= 0) throw deadlineError?.() ?? new Error(`gave up waiting for ${what} after ${deadlineMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(pause, left)));
  }
}
