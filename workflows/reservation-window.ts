import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  continueAsNew,
  proxyActivities,
  setHandler,
  setWorkflowOptions,
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
import { refusalIn, stepRefusal } from './shared/step-failures';
import { STEP_RETRY } from './shared/step-policy';
import { LONG_LIVED } from './shared/versioning';

type ReservationState = 'holding' | 'refused' | 'active' | 'releasing' | 'cancelled' | 'expired';

/** How the workflow ended; a refused hold says why. */
type ReservationResult = { status: ReservationState; refusal?: Refused };

const { holdReservation, changeReservation, releaseReservation } = proxyActivities<Activities>({
  startToCloseTimeout: '20s',
  retry: STEP_RETRY,
});

/*
 * A step that failed for good (refused, or out of retries: docs/operations.md) leaves a known state:
 * a refused hold ends the workflow as refused with nothing held (completed: refusing is an answer,
 * so operators' Failed list holds only breakage; one out of retries fails it), a change or cancellation fails its Update
 * and the reservation stays active as it was, and an expiry that cannot release tries again an hour
 * later. Each step is one transaction: a failed one changed nothing.
 */
const RELEASE_RETRY_MS = 60 * 60 * 1000;

// Changes are client-driven and unbounded in number: start a fresh history well before it grows large.
const MAX_HISTORY = 2000;

/**
 * Holds a reservation's units for one account until end_date (a timer, moved by changes) or a
 * cancellation; then whatever is left returns to the offer's general stock. Set up the handlers,
 * then run: hold, then wait for the end or a change until the reservation is no longer active.
 */
export async function reservationWindowWorkflow(input: ReservationWindowInput): Promise<ReservationResult> {
  const reservation = new ReservationWindow(input);
  reservation.setup();
  return reservation.run();
}
setWorkflowOptions(LONG_LIVED, reservationWindowWorkflow);

class ReservationWindow {
  private readonly workflowId = workflowInfo().workflowId;
  private readonly reservationId: string;
  private state: ReservationState;
  /** The hold's answer, for the `held` Update; set when continuing as new (the units are held). */
  private held: ReservationOutcome | undefined;
  private endDate: string;
  private changes: number;
  /** Set by a change (end_date may have moved): the wait for the end starts again. */
  private changed = false;
  /** After an expiry that could not release: no release is tried before it. */
  private releaseRetryAtMs = 0;

  constructor(private readonly input: ReservationWindowInput) {
    this.reservationId = input.hold.reservationId;
    this.state = input.held ? 'active' : 'holding';
    this.held = input.held ? { ok: true, endDate: input.endDate! } : undefined;
    this.endDate = input.endDate ?? input.hold.endDate;
    this.changes = input.changes ?? 0;
  }

  /** The status query and the client's Updates: `held` (sent with the start), `change` and `cancel`. */
  setup(): void {
    setHandler(reservationStatusQuery, () => this.state);
    setHandler(heldUpdate, async () => {
      await condition(() => this.held !== undefined);
      return this.held!;
    });
    setHandler(changeReservationUpdate, (change) => this.change(change), { validator: (_change) => this.mustBeActive() });
    setHandler(cancelReservationUpdate, () => this.cancel(), { validator: () => this.mustBeActive() });
  }

  /** Holds the units (unless already held), then waits for the end or a change until the reservation ends or continues as new. */
  async run(): Promise<ReservationResult> {
    if (!this.held) await this.hold();
    if (this.held && !this.held.ok) return { status: this.state, refusal: this.held };
    while (await this.waitForEndOrChange()) {
      if (workflowInfo().historyLength > MAX_HISTORY) {
        await condition(allHandlersFinished);
        const { hold } = this.input;
        return continueAsNew<typeof reservationWindowWorkflow>({ hold, held: true, endDate: this.endDate, changes: this.changes });
      }
    }
    await condition(allHandlersFinished);
    return { status: this.state };
  }

  /**
   * Holds the units. A refusal (the hold's answer, or the refusal its step failed with) answers
   * `held`, and the workflow ends as refused, completed; a step out of retries on a fault answers
   * backend_unavailable and fails the workflow with it (that is breakage).
   */
  private async hold(): Promise<void> {
    let broken = false;
    const held = await holdReservation(this.input.hold).catch((err: unknown) => {
      broken = refusalIn(err) === undefined;
      return stepRefusal(err, 'the reservation');
    });
    this.held = held;
    if (held.ok) {
      this.state = 'active';
      return;
    }
    this.state = 'refused';
    await condition(allHandlersFinished);
    if (broken) throw ApplicationFailure.create({ message: held.message, type: held.code, nonRetryable: true, details: [held] });
  }

  /**
   * Waits until end_date is over (then releases the units as expired), a change came, or a
   * cancellation ended; whether the reservation is still active afterwards.
   */
  private async waitForEndOrChange(): Promise<boolean> {
    this.changed = false;
    // The hold ends when end_date (a whole UTC day, inclusive) is over.
    const dueMs = Math.max(endOfUtcDayMs(this.endDate), this.releaseRetryAtMs);
    const woken = await condition(() => this.changed || this.current() !== 'active', Math.max(dueMs - Date.now(), 1000));
    if (!woken && this.current() === 'active') await this.expire();
    // A cancellation is releasing: it may fail and leave the reservation active (then wait on).
    if (this.current() === 'releasing') await condition(() => this.current() !== 'releasing');
    return this.current() === 'active';
  }

  /** Returns the units as expired; if that fails for good, stays active (cancellable) and tries again later. */
  private async expire(): Promise<void> {
    this.state = 'releasing';
    try {
      await releaseReservation({ key: `${this.workflowId}:expire`, reservationId: this.reservationId, to: 'expired' });
      this.state = 'expired';
    } catch {
      // Still held: `admin workflows stuck` lists it.
      this.state = 'active';
      this.releaseRetryAtMs = Date.now() + RELEASE_RETRY_MS;
    }
  }

  /** The client's change (quantity or dates); a refusal fails the Update and changes nothing. */
  private async change(change: ReservationChangeArgs): Promise<ReservationOutcome> {
    const key = `${this.workflowId}:change:${++this.changes}`;
    const result = await changeReservation({ key, reservationId: this.reservationId, ...change }).catch((err: unknown) => {
      throw refusedUpdate(stepRefusal(err, 'the change'));
    });
    if (!result.ok) throw refusedUpdate(result);
    this.endDate = result.endDate;
    this.changed = true;
    return result;
  }

  /** The client's cancellation: returns the units; if that fails, the Update fails and the reservation stays active. */
  private async cancel(): Promise<{ status: string }> {
    this.state = 'releasing';
    try {
      await releaseReservation({ key: `${this.workflowId}:cancel`, reservationId: this.reservationId, to: 'cancelled' });
    } catch (err) {
      this.state = 'active';
      throw refusedUpdate(stepRefusal(err, 'the cancellation'));
    }
    this.state = 'cancelled';
    return { status: this.state };
  }

  private mustBeActive(): void {
    if (this.state !== 'active') throw new Error(`the reservation is ${this.state}`);
  }

  /** The state read through a call: handlers change it between awaits. */
  private current(): ReservationState {
    return this.state;
  }
}

/** Fails an Update with the refusal as its details and its code as the type (the API answers the code). */
function refusedUpdate(r: Refused): ApplicationFailure {
  return ApplicationFailure.create({ message: r.message, type: r.code, nonRetryable: true, details: [r] });
}
