import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Refused } from '../domain/failures';
import type { Activities } from '../activities';
import {
  cancelReservationUpdate,
  changeReservationUpdate,
  heldUpdate,
  reservationStatusQuery,
  type ReservationChangeArgs,
  type ReservationOutcome,
  type ReservationWindowInput,
} from './reservation-window-messages';
import { endOfUtcDayMs } from '../domain/dates';
import { stepRefusal } from './shared/step-failures';
import { STEP_FAILURES_PATCH, STEP_RETRY } from './shared/step-policy';

type ReservationState = 'holding' | 'refused' | 'active' | 'releasing' | 'cancelled' | 'expired';

const { holdReservation, changeReservation, releaseReservation } = proxyActivities<Activities>({
  startToCloseTimeout: '20s',
  retry: STEP_RETRY,
});

/*
 * A step that failed for good (refused, or out of retries: docs/operations.md) leaves a known state
 * (issue 19), from this patch on: a hold ends the workflow as refused with nothing held, a change
 * or cancellation fails its Update and the reservation stays active as it was, and an expiry that
 * cannot release tries again an hour later. Each step is one transaction: a failed one changed nothing.
 */
const RELEASE_RETRY_MS = 60 * 60 * 1000;

/** Fails an Update with the refusal as its details and its code as the type (the API answers the code). */
function refusedUpdate(r: Refused): ApplicationFailure {
  return ApplicationFailure.create({ message: r.message, type: r.code, nonRetryable: true, details: [r] });
}

// Histories recorded before the 'workflow-clock' patch read the time through this local activity;
// they must replay it. New runs read Date.now() instead (see the loop below).
const { currentTimeMs } = proxyLocalActivities<Activities>({ startToCloseTimeout: '5 seconds', retry: STEP_RETRY });

// Changes are client-driven and unbounded in number: start a fresh history well before it grows large.
const MAX_HISTORY = 2000;

/**
 * Holds a reservation's units for one account until end_date (a timer, moved by changes) or a
 * cancellation; then whatever is left returns to the offer's general stock.
 */
export async function reservationWindowWorkflow(input: ReservationWindowInput): Promise<{ status: ReservationState }> {
  const { workflowId } = workflowInfo();
  const id = input.hold.reservationId;
  let state: ReservationState = input.held ? 'active' : 'holding';
  let held: ReservationOutcome | undefined = input.held ? { ok: true, endDate: input.endDate! } : undefined;
  let endDate = input.endDate ?? input.hold.endDate;
  let changes = input.changes ?? 0;
  let wake = false;
  let releaseRetryAtMs = 0; // after an expiry that could not release (patch STEP_FAILURES_PATCH)
  const mustBeActive = () => {
    if (state !== 'active') throw new Error(`the reservation is ${state}`);
  };

  setHandler(reservationStatusQuery, () => state);
  setHandler(heldUpdate, async () => {
    await condition(() => held !== undefined);
    return held!;
  });
  setHandler(
    changeReservationUpdate,
    async (change: ReservationChangeArgs) => {
      const result = await changeReservation({ key: `${workflowId}:change:${++changes}`, reservationId: id, ...change }).catch(
        (err: unknown) => {
          if (patched(STEP_FAILURES_PATCH)) throw refusedUpdate(stepRefusal(err, 'the change'));
          throw err;
        },
      );
      if (!result.ok) throw refusedUpdate(result);
      endDate = result.endDate;
      wake = true;
      return result;
    },
    { validator: (_change: ReservationChangeArgs) => mustBeActive() },
  );
  setHandler(
    cancelReservationUpdate,
    async () => {
      state = 'releasing';
      try {
        await releaseReservation({ key: `${workflowId}:cancel`, reservationId: id, to: 'cancelled' });
      } catch (err) {
        if (!patched(STEP_FAILURES_PATCH)) throw err;
        state = 'active';
        throw refusedUpdate(stepRefusal(err, 'the cancellation'));
      }
      state = 'cancelled';
      return { status: state };
    },
    { validator: mustBeActive },
  );

  if (!held) {
    held = await holdReservation(input.hold).catch((err: unknown) => {
      if (patched(STEP_FAILURES_PATCH)) return stepRefusal(err, 'the reservation');
      throw err;
    });
    if (!held.ok) {
      state = 'refused';
      await condition(allHandlersFinished);
      throw ApplicationFailure.create({ message: held.message, type: held.code, nonRetryable: true, details: [held] });
    }
    state = 'active';
  }

  const current = (): ReservationState => state; // read through a call: handlers change it between awaits
  for (;;) {
    wake = false;
    // In the workflow sandbox Date.now() is deterministic (the current workflow task's start time,
    // replayed from history), so a timer against a calendar date needs no activity round trip.
    // Runs recorded with the currentTimeMs local activity keep replaying it.
    const nowMs = patched('workflow-clock') ? Date.now() : await currentTimeMs();
    // The hold ends when end_date (a whole UTC day, inclusive) is over.
    const dueMs = Math.max(endOfUtcDayMs(endDate), releaseRetryAtMs);
    const woken = await condition(() => wake || current() !== 'active', Math.max(dueMs - nowMs, 1000));
    if (!woken && current() === 'active') {
      state = 'releasing';
      try {
        await releaseReservation({ key: `${workflowId}:expire`, reservationId: id, to: 'expired' });
        state = 'expired';
      } catch (err) {
        if (!patched(STEP_FAILURES_PATCH)) throw err;
        // Still held: stay active (cancellable) and try again later; `admin workflows stuck` lists it.
        state = 'active';
        releaseRetryAtMs = Date.now() + RELEASE_RETRY_MS;
      }
    }
    if (current() === 'releasing' && patched(STEP_FAILURES_PATCH)) {
      // A cancellation is releasing: it may fail and leave the reservation active (then wait on).
      await condition(() => current() !== 'releasing');
      if (current() === 'active') continue;
    }
    if (current() !== 'active') break;
    if (workflowInfo().historyLength > MAX_HISTORY) {
      await condition(allHandlersFinished);
      return continueAsNew<typeof reservationWindowWorkflow>({ hold: input.hold, held: true, endDate, changes });
    }
  }
  await condition(allHandlersFinished);
  return { status: state };
}
