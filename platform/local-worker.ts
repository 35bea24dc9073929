import { Client, type ClientInterceptors } from '@temporalio/client';
import type { NativeConnection } from '@temporalio/worker';

/**
 * Answers handed from this process's activities to this process's API, keyed by workflow id: a
 * one-shot wait room, nothing more. Nothing crosses a process: an API without a worker of its
 * own never hears anything, and falls back to asking the workflow (services/orders.ts).
 */
export class InProcessNotices<T> {
  private readonly waiting = new Map<string, Set<(value: T) => void>>();

  /**
   * Listens for `key` from now on: `next` resolves with the first value notified after this call
   * (it never settles otherwise). `stop()` when done, answered or not.
   */
  listen(key: string): { next: Promise<T>; stop(): void } {
    let listener!: (value: T) => void;
    const next = new Promise<T>((resolve) => (listener = resolve));
    const set = this.waiting.get(key) ?? new Set();
    set.add(listener);
    this.waiting.set(key, set);
    return {
      next,
      stop: () => {
        set.delete(listener);
        if (set.size === 0 && this.waiting.get(key) === set) this.waiting.delete(key);
      },
    };
  }

  /** Hands `value` to whoever in this process listens for `key`; false when nobody does. */
  notify(key: string, value: T): boolean {
    const set = this.waiting.get(key);
    if (!set) return false;
    for (const listener of set) listener(value);
    return true;
  }

  /** How many keys are listened for (a leak shows here). */
  get size(): number {
    return this.waiting.size;
  }
}

/**
 * What an API shares with a Temporal worker running in the same process (`npm start`'s default,
 * RUN_API and RUN_WORKER both on). Built once per process by main/wiring.ts and handed to both:
 * - `client`, set while the worker runs: a Temporal client on the worker's own connection, through
 *   which a workflow may start eagerly (its first task runs in this process, no matching round trip);
 * - `placed`: the placing activity's answer for an order's workflow, once its transaction committed.
 */
export interface LocalWorker<Placed = unknown> {
  client?: Client;
  /** The task queue the worker polls; eager start only helps a workflow started on it. */
  taskQueue?: string;
  placed: InProcessNotices<Placed>;
}

export function createLocalWorker<Placed>(): LocalWorker<Placed> {
  return { placed: new InProcessNotices<Placed>() };
}

/**
 * A worker now runs in this process on `connection` and `taskQueue`: from now on the API may start
 * workflows eagerly through it. Returns the undo, called as soon as the worker starts to stop.
 */
export function attachLocalWorker<Placed>(
  link: LocalWorker<Placed>,
  opts: { connection: NativeConnection; namespace: string; taskQueue: string; interceptors?: ClientInterceptors },
): () => void {
  const client = new Client({ connection: opts.connection, namespace: opts.namespace, interceptors: opts.interceptors });
  link.client = client;
  link.taskQueue = opts.taskQueue;
  return () => {
    if (link.client !== client) return;
    link.client = undefined;
    link.taskQueue = undefined;
  };
}
