/** What `eventually` awaits: a name, or a function giving one with the state seen (read at the timeout). */
export type WaitingFor = string | (() => string | Promise<string>);

export interface EventuallyOptions {
  /** How long to keep trying before failing; 30 s unless told. */
  timeoutMs?: number;
  /** The pause between two tries; 200 ms unless told. */
  intervalMs?: number;
}

/**
 * The one way a test waits for something the system does in its own time: calls `probe` until it
 * returns a value (anything but undefined, null or false) and returns that value; fails naming
 * `what` once `timeoutMs` has passed. An error thrown by `probe` fails at once (a dead child
 * process, say): a probe says "not yet" by returning nothing.
 */
export async function eventually<T>(
  what: WaitingFor,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { timeoutMs = 30_000, intervalMs = 200 }: EventuallyOptions = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    const left = deadline - Date.now();
    if (left <= 0) throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : await what()}`);
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
  }
}
