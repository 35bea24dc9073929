import { Context } from '@temporalio/activity';
import { revenueShares } from '../../domain/money';
import { dispatchEvents, staleLanes, type DeliveryLane } from '../../store/callbacks';
import { wakeCallbackLane } from '../../workflows/callback-delivery-messages';
import type { ActivityDeps } from '../deps';
import { callbackBuilder } from '../../schemas/callback-event';

/** Events taken from the outbox per transaction. */
const DISPATCH_BATCH = 100;
/** How long a lane may look idle with work pending before the sweep wakes its workflow again. */
const STALE_LANE_SECONDS = 60;

/** A promise that resolves when the worker starts shutting down (never without a signal), and its listener's removal. */
function whenAborted(signal?: AbortSignal): { promise: Promise<void>; dispose(): void } {
  let onAbort = () => undefined as void;
  const promise = new Promise<void>((resolve) => {
    onAbort = () => resolve();
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  return { promise, dispose: () => signal?.removeEventListener('abort', onAbort) };
}

/** The outbox pump: the callback dispatcher workflow's one activity. */
export function createCallbackDispatcherActivities(deps: Pick<ActivityDeps, 'db' | 'config' | 'temporal' | 'stopping'>) {
  const { db, config, temporal } = deps;

  async function wakeAll(taskQueue: string, lanes: DeliveryLane[]) {
    for (const lane of lanes)
      await wakeCallbackLane(temporal.workflow, { taskQueue, attemptTimeoutSeconds: config.CALLBACK_TIMEOUT_SECONDS }, lane);
  }

  return {
    /**
     * Runs for `runForMs`, moving new outbox events into deliveries every `pollMs` and waking their
     * lanes; every half minute it also wakes lanes whose wake-up was lost. Heartbeats, so a worker
     * shutdown or crash hands the pump to another worker quickly.
     */
    async pumpCallbackOutbox(input: { runForMs: number; pollMs: number }): Promise<{ events: number }> {
      const ctx = Context.current();
      const until = Date.now() + input.runForMs;
      const callbackFor = callbackBuilder(revenueShares(config));
      let total = 0;
      let nextSweep = 0;
      const stopped = whenAborted(deps.stopping);
      try {
        while (Date.now() < until && !deps.stopping?.aborted) {
          ctx.heartbeat();
          const { events, lanes } = await dispatchEvents(db, DISPATCH_BATCH, callbackFor);
          total += events;
          await wakeAll(ctx.info.taskQueue, lanes);
          if (Date.now() >= nextSweep) {
            nextSweep = Date.now() + 30_000;
            await wakeAll(ctx.info.taskQueue, await staleLanes(db, STALE_LANE_SECONDS));
          }
          if (events < DISPATCH_BATCH) {
            const nap = ctx.sleep(input.pollMs);
            nap.catch(() => undefined); // if shutdown wins the race, a later cancellation is nobody's business
            await Promise.race([nap, stopped.promise]);
          }
        }
      } finally {
        stopped.dispose();
      }
      return { events: total };
    },
  };
}
