import { setTimeout as sleep } from 'node:timers/promises';

/** How long to wait at most, and how often to look. */
export interface WaitOptions {
  timeoutMs: number;
  everyMs: number;
}

/**
 * The local stack's one way to wait for what nothing tells it about (another process's exit, a file
 * another process writes, a server's readiness): asks `check` every `everyMs` until it answers true
 * or `timeoutMs` has passed, and says whether it did. An error `check` throws ends the wait at once
 * (a server that exited during start-up).
 */
export async function waitFor(check: () => boolean | Promise<boolean>, { timeoutMs, everyMs }: WaitOptions): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    const left = until - Date.now();
    if (left <= 0) return false;
    await sleep(Math.min(everyMs, left));
  }
}
