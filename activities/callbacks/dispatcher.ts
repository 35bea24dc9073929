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

/** A wait that something may cut short (a commit, a finished fast attempt, shutdown), and whether it did. */
function interruptibleWait() {
  let kick = () => undefined as void;
  const state = {
    dirty: false,
    poke: () => {
      state.dirty = true;
      kick();
    },
    wait: (ms: number) =>
      new Promise<void>((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          // A wait that lost a race (the drain below) must not disarm the wait after it.
          if (kick === done) kick = () => undefined;
          resolve();
        }
        kick = done;
      }),
  };
  return state;
}

/** The first attempts the pump makes itself: FAST_ATTEMPTS at once, the rest of what it leased queued. */
function fastAttempts(attempt: (d: LeasedDelivery) => Promise<void>, onDone: () => void) {
  const inFlight = new Set<Promise<void>>();
  const queue: LeasedDelivery[] = [];
  const start = () => {
    while (inFlight.size < FAST_ATTEMPTS && queue.length) {
      const p: Promise<void> = attempt(queue.shift()!).then(() => {
        inFlight.delete(p);
        start();
        onDone();
      });
      inFlight.add(p);
    }
  };
  return {
    add(leased: LeasedDelivery[]) {
      queue.push(...leased);
      start();
    },
    freeSlots: () => FAST_QUEUE - queue.length - inFlight.size,
    busy: () => inFlight.size > 0 || queue.length > 0,
    settled: () => Promise.all(inFlight),
  };
}

type PumpDeps = Pick<ActivityDeps, 'db' | 'config' | 'temporal' | 'log' | 'stopping' | 'metrics'>;
type Log = ActivityDeps['log'];

/** A fast attempt of a leased delivery; its lane goes to `finished`, to be woken if more is pending in it. */
const attemptLeased =
  ({ db, config }: PumpDeps, log: Log, attemptDelivery: ReturnType<typeof createDeliveryAttempt>, finished: DeliveryLane[]) =>
  async (d: LeasedDelivery) => {
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

/** Listens for outbox commits; without a listener the pump polls. */
async function listenOrPoll(db: PumpDeps['db'], log: Log, onEvent: () => void): Promise<Listener | undefined> {
  try {
    return await listenForOfferEvents(db, onEvent);
  } catch (err) {
    log.warn({ err }, 'cannot LISTEN for outbox events; polling instead');
    return undefined;
  }
}

/** The outbox pump: the callback dispatcher workflow's one activity. */
export function createCallbackDispatcherActivities(deps: PumpDeps) {
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
      const stopped = () => deps.stopping?.aborted === true;
      const wakeup = interruptibleWait();
      deps.stopping?.addEventListener('abort', wakeup.poke, { once: true });
      const listener = await listenOrPoll(db, log, wakeup.poke);
      const finished: DeliveryLane[] = [];
      const fast = fastAttempts(attemptLeased(deps, log, attemptDelivery, finished), wakeup.poke);
      const wakeFinished = async () => {
        if (finished.length) await wakeAll(taskQueue, await lanesWithPending(db, finished.splice(0)));
      };
      let total = 0;
      let nextSweep = 0;
      try {
        while (Date.now() < until && !stopped()) {
          ctx.heartbeat();
          wakeup.dirty = false;
          const { events, lanes, leased } = await dispatchEvents(db, DISPATCH_BATCH, callbackFor, {
            slots: fast.freeSlots(),
            seconds: QUEUED_LEASE_SECONDS,
          });
          total += events;
          fast.add(leased);
          await wakeAll(taskQueue, lanes);
          await wakeFinished();
          if (Date.now() >= nextSweep) {
            nextSweep = Date.now() + 30_000;
            await wakeAll(taskQueue, await staleLanes(db, STALE_LANE_SECONDS));
          }
          if (events < DISPATCH_BATCH && !wakeup.dirty) {
            const pollMs = listener?.alive ? FALLBACK_POLL_MS : input.pollMs;
            await wakeup.wait(Math.max(0, Math.min(pollMs, until - Date.now())));
          }
        }
        // Let this run's fast attempts finish (each is bounded by CALLBACK_TIMEOUT_SECONDS) and hand
        // on their lanes; on shutdown, leave them: their leases run out and the sweep takes over.
        while (fast.busy() && !stopped()) {
          ctx.heartbeat();
          await Promise.race([fast.settled(), wakeup.wait(5_000)]);
          await wakeFinished();
        }
        if (!stopped()) await wakeFinished();
      } finally {
        deps.stopping?.removeEventListener('abort', wakeup.poke);
        await listener?.close();
      }
      return { events: total };
    },
  };
}
