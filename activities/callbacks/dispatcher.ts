import { Context } from '@temporalio/activity';
import { revenueShares } from '../../domain/money';
import { dispatchEvents, type LeasedDelivery } from '../../store/callback-fanout';
import { lanesWithPending, renewLease, staleLanes, type DeliveryLane } from '../../store/callback-deliveries';
import { listenForOfferEvents } from '../../store/offer-events';
import type { Listener } from '../../store/db';
import { wakeCallbackLane } from '../../workflows/callback-delivery-messages';
import type { ActivityDeps } from '../deps';
import { callbackBuilder } from '../../schemas/callback-event';
import { createDeliveryAttempt } from './delivery';

/** Events taken from the outbox per transaction. */
const DISPATCH_BATCH = 100;
/** How long a lane may look idle with work pending before the sweep wakes its workflow again. */
const STALE_LANE_SECONDS = 60;
/**
 * First attempts the pump makes itself at once (fan-out fast path), and how many may wait for one
 * of those slots. Slow receivers (up to CALLBACK_TIMEOUT_SECONDS each) hold a slot, not the pump;
 * beyond the queue, deliveries go through their lane's workflow.
 */
const FAST_ATTEMPTS = 64;
const FAST_QUEUE = 5_000;
/** A queued delivery's lease: long enough to wait its turn; its attempt renews it, and a lapsed one is left to its lane. */
const QUEUED_LEASE_SECONDS = 60;
/** signalWithStart calls in flight at once when waking many lanes. */
const WAKE_CONCURRENCY = 16;
/** Beyond the attempt's own timeout, how long a fast-path lease lasts (recording the attempt, a slow database). */
const LEASE_MARGIN_SECONDS = 15;
/** While LISTEN works, the outbox is still read this often, in case a notification was missed. */
const FALLBACK_POLL_MS = 5_000;

/** Runs `fn` over `items`, at most `limit` at a time. */
async function eachLimited<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** The outbox pump: the callback dispatcher workflow's one activity. */
export function createCallbackDispatcherActivities(
  deps: Pick<ActivityDeps, 'db' | 'config' | 'temporal' | 'log' | 'stopping' | 'metrics'>,
) {
  const { db, config, temporal } = deps;
  const log = deps.log.child({ component: 'callbacks' });
  const attemptDelivery = createDeliveryAttempt(deps);

  async function wakeAll(taskQueue: string, lanes: DeliveryLane[]) {
    await eachLimited(lanes, WAKE_CONCURRENCY, (lane) =>
      wakeCallbackLane(temporal.workflow, { taskQueue, attemptTimeoutSeconds: config.CALLBACK_TIMEOUT_SECONDS }, lane),
    );
  }

  return {
    /**
     * Runs for `runForMs`, moving new outbox events into deliveries as soon as their transaction
     * commits (LISTEN/NOTIFY; every `pollMs` if the listener is down, and a slow poll as a safety
     * net), making first attempts itself for lanes with nothing pending (FAST_ATTEMPTS at once,
     * FAST_QUEUE waiting) and waking the other lanes; every half minute it also wakes lanes whose wake-up was
     * lost. Heartbeats, so a worker shutdown or crash hands the pump to another worker quickly.
     */
    async pumpCallbackOutbox(input: { runForMs: number; pollMs: number }): Promise<{ events: number }> {
      const ctx = Context.current();
      const taskQueue = ctx.info.taskQueue;
      const until = Date.now() + input.runForMs;
      const callbackFor = callbackBuilder(revenueShares(config));
      let total = 0;
      let nextSweep = 0;

      // Something to do (a commit, a finished fast attempt, shutdown): cuts the current wait short.
      let dirty: boolean;
      let kick = () => undefined as void;
      const poke = () => {
        dirty = true;
        kick();
      };
      const wait = (ms: number) =>
        new Promise<void>((resolve) => {
          const timer = setTimeout(done, ms);
          function done() {
            clearTimeout(timer);
            // A wait that lost a race (the drain below) must not disarm the wait after it.
            if (kick === done) kick = () => undefined;
            resolve();
          }
          kick = done;
        });
      deps.stopping?.addEventListener('abort', poke, { once: true });

      let listener: Listener | undefined;
      try {
        listener = await listenForOfferEvents(db, poke);
      } catch (err) {
        log.warn({ err }, 'cannot LISTEN for outbox events; polling instead');
      }

      const inFlight = new Set<Promise<void>>();
      const queue: LeasedDelivery[] = [];
      // Lanes whose fast attempt finished: woken if anything is still pending in them.
      const finished: DeliveryLane[] = [];
      const attemptLeased = async (d: LeasedDelivery) => {
        try {
          // Only while the lease still holds (renewed for the attempt): a lapsed one may be in its lane's hands.
          if (await renewLease(db, d.deliveryId, config.CALLBACK_TIMEOUT_SECONDS + LEASE_MARGIN_SECONDS))
            await attemptDelivery({ deliveryId: d.deliveryId });
        } catch (err) {
          // Our own fault (database): the lease runs out and the stale-lane sweep hands the delivery to its lane.
          log.warn({ err, delivery_id: d.deliveryId }, 'fast callback attempt failed; its lane will retry it');
        }
        finished.push(d.lane);
      };
      const startAttempts = () => {
        while (inFlight.size < FAST_ATTEMPTS && queue.length) {
          const p: Promise<void> = attemptLeased(queue.shift()!).then(() => {
            inFlight.delete(p);
            startAttempts();
            poke();
          });
          inFlight.add(p);
        }
      };
      const wakeFinished = async () => {
        if (finished.length) await wakeAll(taskQueue, await lanesWithPending(db, finished.splice(0)));
      };

      try {
        while (Date.now() < until && !deps.stopping?.aborted) {
          ctx.heartbeat();
          dirty = false;
          const { events, lanes, leased } = await dispatchEvents(db, DISPATCH_BATCH, callbackFor, {
            slots: FAST_QUEUE - queue.length - inFlight.size,
            seconds: QUEUED_LEASE_SECONDS,
          });
          total += events;
          queue.push(...leased);
          startAttempts();
          await wakeAll(taskQueue, lanes);
          await wakeFinished();
          if (Date.now() >= nextSweep) {
            nextSweep = Date.now() + 30_000;
            await wakeAll(taskQueue, await staleLanes(db, STALE_LANE_SECONDS));
          }
          if (events < DISPATCH_BATCH && !dirty) {
            const pollMs = listener?.alive ? FALLBACK_POLL_MS : input.pollMs;
            await wait(Math.max(0, Math.min(pollMs, until - Date.now())));
          }
        }
        // Let this run's fast attempts finish (each is bounded by CALLBACK_TIMEOUT_SECONDS) and hand
        // on their lanes; on shutdown, leave them: their leases run out and the sweep takes over.
        while ((inFlight.size || queue.length) && !deps.stopping?.aborted) {
          ctx.heartbeat();
          await Promise.race([Promise.all(inFlight), wait(5_000)]);
          await wakeFinished();
        }
        if (!deps.stopping?.aborted) await wakeFinished();
      } finally {
        deps.stopping?.removeEventListener('abort', poke);
        await listener?.close();
      }
      return { events: total };
    },
  };
}
