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

type ReservationState = 'holding' | 'refused' | 'active' | 'releasing' | 'cancelled' | 'expired';

const { holdReservation, changeReservation, releaseReservation } = proxyActivities<Activities>({
  startToCloseTimeout: '20s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
});

// Histories recorded before the 'workflow-clock' patch read the time through this local activity;
// they must replay it. New runs read Date.now() instead (see the loop below).
const { currentTimeMs } = proxyLocalActivities<Activities>({ startToCloseTimeout: '5 seconds' });

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
      const result = await changeReservation({ key: `${workflowId}:change:${++changes}`, reservationId: id, ...change });
      if (!result.ok)
        throw ApplicationFailure.create({ message: result.message, type: result.code, nonRetryable: true, details: [result] });
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
      await releaseReservation({ key: `${workflowId}:cancel`, reservationId: id, to: 'cancelled' });
      state = 'cancelled';
      return { status: state };
    },
    { validator: mustBeActive },
  );

  if (!held) {
    held = await holdReservation(input.hold);
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
    const woken = await condition(() => wake || current() !== 'active', Math.max(endOfUtcDayMs(endDate) - nowMs, 1000));
    if (!woken && current() === 'active') {
      state = 'releasing';
      await releaseReservation({ key: `${workflowId}:expire`, reservationId: id, to: 'expired' });
      state = 'expired';
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
