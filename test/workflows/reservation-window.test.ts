import { WithStartWorkflowOperation, WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { addDays, utcDay } from '../../domain/dates';
import type { HoldReservationInput, ReservationChange, ReservationOutcome, ReservationRelease } from '../../domain/reservations';
import {
  cancelReservationUpdate,
  changeReservationUpdate,
  heldUpdate,
  RESERVATION_WORKFLOW_TYPE,
  reservationStatusQuery,
  type ReservationWindowInput,
} from '../../workflows/reservation-window-messages';
import { reservationWorkflowId } from '../../workflows/shared/ids';
import { refusalIn } from '../../workflows/shared/step-failures';
import { eventually } from '../setup/eventually';
import { ActivityCalls, recordHistory, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';

/*
 * The reservation-window workflow with its activities replaced by doubles: the hold, its end at
 * end_date (a timer moved by changes), cancelling, and refusals. end_date is a calendar day, which
 * a test cannot shorten: the expiry is driven by a day already over, at the start or by a change.
 */
describe('reservation-window workflow', () => {
  let env: WorkflowTestEnv;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
  });
  afterAll(() => env?.close());

  const today = utcDay();
  const yesterday = addDays(today, -1);
  let reservations = 0;
  const hold = (endDate: string): HoldReservationInput => ({
    reservationId: `rsv_test${++reservations}`,
    clientId: 'cli_test',
    offerId: 'ofr_a',
    accountId: 'acc_a',
    quantity: 3,
    startDate: today,
    endDate,
  });
  const doubles = (calls: ActivityCalls, change?: (c: ReservationChange) => ReservationOutcome) =>
    calls.wrap({
      holdReservation: async (h: HoldReservationInput): Promise<ReservationOutcome> => ({ ok: true, endDate: h.endDate }),
      changeReservation: async (c: ReservationChange): Promise<ReservationOutcome> => change!(c),
      releaseReservation: async (r: ReservationRelease) => ({ status: r.to }),
    });
  const start = (taskQueue: string, input: ReservationWindowInput) => {
    const startWorkflowOperation = new WithStartWorkflowOperation(RESERVATION_WORKFLOW_TYPE, {
      workflowId: reservationWorkflowId(input.hold.reservationId),
      taskQueue,
      args: [input],
      workflowIdConflictPolicy: 'FAIL',
    });
    return {
      held: env.client.workflow.executeUpdateWithStart(heldUpdate, { startWorkflowOperation }),
      handle: env.client.workflow.getHandle(reservationWorkflowId(input.hold.reservationId)),
    };
  };
  const failure = async (p: Promise<unknown>) => {
    const err = await p.catch((e: unknown) => e);
    const cause = (err as WorkflowUpdateFailedError | WorkflowFailedError).cause as ApplicationFailure;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    return { error: (err as Error).constructor.name, type: cause.type, details: cause.details };
  };

  it('holds the units, then a cancellation releases them', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(doubles(calls), async (q) => {
      const input = { hold: hold(addDays(today, 30)) };
      const { held, handle } = start(q, input);
      expect(await held).toEqual({ ok: true, endDate: input.hold.endDate });
      expect(calls.of('holdReservation')).toEqual([input.hold]);
      expect(await handle.query(reservationStatusQuery)).toBe('active');
      expect(await handle.executeUpdate(cancelReservationUpdate)).toEqual({ status: 'cancelled' });
      expect(await handle.result()).toEqual({ status: 'cancelled' });
      expect(calls.of('releaseReservation')).toEqual([
        { key: `${handle.workflowId}:cancel`, reservationId: input.hold.reservationId, to: 'cancelled' },
      ]);
      await recordHistory(handle, 'reservation-window-held-cancelled');
    });
  });

  it('answers a refused hold, and the workflow completes as refused, not Failed (issue 34)', async () => {
    const calls = new ActivityCalls();
    const refusal: ReservationOutcome = { ok: false, code: 'insufficient_stock', message: 'only 2 units', available: 2 };
    await env.withWorker(calls.wrap({ holdReservation: async () => refusal }), async (q) => {
      const { held, handle } = start(q, { hold: hold(addDays(today, 30)) });
      expect(await held).toEqual(refusal);
      // Operators' list of Failed workflows holds breakage only: a refusal is an answer.
      expect(await handle.result()).toEqual({ status: 'refused', refusal });
      expect((await handle.describe()).status.name).toBe('COMPLETED');
      await recordHistory(handle, 'reservation-window-hold-refused');
    });
  });

  it('expires once end_date is over and returns the units', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(doubles(calls), async (q) => {
      const { held, handle } = start(q, { hold: hold(yesterday) });
      expect((await held).ok).toBe(true);
      expect(await handle.result()).toEqual({ status: 'expired' });
      expect(calls.of('releaseReservation')).toEqual([
        { key: `${handle.workflowId}:expire`, reservationId: expect.any(String), to: 'expired' },
      ]);
    });
  });

  it('moves its timer with each change: extended it stays, shortened into the past it expires; a refused change fails the update', async () => {
    const calls = new ActivityCalls();
    const ends = [addDays(today, 60), undefined, yesterday];
    const change = (c: ReservationChange): ReservationOutcome => {
      const end = ends.shift();
      return end
        ? { ok: true, endDate: end }
        : { ok: false, code: 'invalid_field', message: `end_date ${c.end_date} is too far`, field: 'end_date' };
    };
    await env.withWorker(doubles(calls, change), async (q) => {
      const { held, handle } = start(q, { hold: hold(addDays(today, 30)) });
      expect((await held).ok).toBe(true);
      expect(await handle.executeUpdate(changeReservationUpdate, { args: [{ end_date: addDays(today, 60) }] })).toEqual({
        ok: true,
        endDate: addDays(today, 60),
      });
      expect(await failure(handle.executeUpdate(changeReservationUpdate, { args: [{ end_date: '2999-01-01' }] }))).toMatchObject({
        error: 'WorkflowUpdateFailedError',
        type: 'invalid_field',
      });
      expect(await handle.query(reservationStatusQuery)).toBe('active');
      expect(calls.of('releaseReservation')).toEqual([]);
      await handle.executeUpdate(changeReservationUpdate, { args: [{ end_date: yesterday }] });
      expect(await handle.result()).toEqual({ status: 'expired' });
      expect(calls.of('changeReservation').map((c) => (c as ReservationChange).key)).toEqual(
        [1, 2, 3].map((n) => `${handle.workflowId}:change:${n}`),
      );
      expect(calls.of('releaseReservation')).toHaveLength(1);
      await recordHistory(handle, 'reservation-window-changed-refused-expired');
    });
  });

  it('refuses changes and cancellation once the reservation is no longer active', async () => {
    const calls = new ActivityCalls();
    let release!: () => void;
    const releasing = new Promise<void>((r) => (release = r));
    const doublesHeld = calls.wrap({
      holdReservation: async (h: HoldReservationInput): Promise<ReservationOutcome> => ({ ok: true, endDate: h.endDate }),
      releaseReservation: async (r: ReservationRelease) => {
        await releasing;
        return { status: r.to };
      },
    });
    await env.withWorker(doublesHeld, async (q) => {
      const { held, handle } = start(q, { hold: hold(addDays(today, 30)) });
      expect((await held).ok).toBe(true);
      const first = handle.executeUpdate(cancelReservationUpdate);
      await calls.nth('releaseReservation');
      // While the first cancellation releases the units, the reservation is 'releasing': the
      // validators refuse before anything is written.
      expect(await handle.executeUpdate(cancelReservationUpdate).catch((e: Error) => (e.cause as Error | undefined)?.message)).toBe(
        'the reservation is releasing',
      );
      const change = handle.executeUpdate(changeReservationUpdate, { args: [{ quantity_reserved: 1 }] });
      expect(await change.catch((e: Error) => (e.cause as Error | undefined)?.message)).toBe('the reservation is releasing');
      release();
      expect(await first).toEqual({ status: 'cancelled' });
      expect(calls.of('releaseReservation')).toHaveLength(1);
      expect(calls.of('changeReservation')).toEqual([]);
    });
  });

  it('continues a held reservation without holding again (the continue-as-new input)', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(doubles(calls), async (q) => {
      const { held, handle } = start(q, { hold: hold(addDays(today, 30)), held: true, endDate: yesterday, changes: 4 });
      expect(await held).toEqual({ ok: true, endDate: yesterday });
      expect(await handle.result()).toEqual({ status: 'expired' });
      expect(calls.of('holdReservation')).toEqual([]);
    });
  });

  it('fails a change whose step was refused for good with the refusal; the reservation stays active', async () => {
    const calls = new ActivityCalls();
    const refused = {
      ok: false as const,
      code: 'invalid_field' as const,
      message: 'a value cannot be stored: date/time field value out of range',
    };
    const activities = calls.wrap({
      holdReservation: async (h: HoldReservationInput): Promise<ReservationOutcome> => ({ ok: true, endDate: h.endDate }),
      // As the worker's interceptor fails a step Postgres refuses (worker/activity-failures.ts).
      changeReservation: async (): Promise<ReservationOutcome> => {
        throw ApplicationFailure.create({ message: refused.message, type: 'Refused', nonRetryable: true, details: [refused] });
      },
      releaseReservation: async (r: ReservationRelease) => ({ status: r.to }),
    });
    await env.withWorker(activities, async (q) => {
      const { held, handle } = start(q, { hold: hold(addDays(today, 30)) });
      expect((await held).ok).toBe(true);
      const err = await handle.executeUpdate(changeReservationUpdate, { args: [{ start_date: '0000-01-01' }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(refusalIn((err as WorkflowUpdateFailedError).cause)).toEqual(refused);
      expect(calls.of('changeReservation')).toHaveLength(1);
      expect(await handle.query(reservationStatusQuery)).toBe('active');
      expect(await handle.executeUpdate(cancelReservationUpdate)).toEqual({ status: 'cancelled' });
      expect(await handle.result()).toEqual({ status: 'cancelled' });
      await recordHistory(handle, 'reservation-window-change-refused-cancelled');
    });
  });

  describe('a step failed for good leaves a known state', () => {
    const refused = { ok: false as const, code: 'invalid_field' as const, message: 'a value cannot be stored' };
    const refuse = async (): Promise<never> => {
      // Thrown retryable: the step policy alone stops it (nonRetryableErrorTypes).
      throw ApplicationFailure.retryable(refused.message, 'Refused', refused);
    };

    it('a hold refused for good answers the refusal and the workflow completes as refused', async () => {
      const calls = new ActivityCalls();
      await env.withWorker(calls.wrap({ holdReservation: refuse }), async (q) => {
        const { held, handle } = start(q, { hold: hold(addDays(today, 30)) });
        expect(await held).toEqual(refused);
        expect(await handle.result()).toEqual({ status: 'refused', refusal: refused });
        expect(calls.of('holdReservation')).toHaveLength(1);
      });
    });

    it('a hold broken for good (no refusal in its failure) answers backend_unavailable and fails the workflow', async () => {
      const calls = new ActivityCalls();
      const broken = async (): Promise<never> => {
        // Not retried, like a step whose retries are spent: the failure carries no refusal.
        throw ApplicationFailure.nonRetryable('connection refused', 'Error');
      };
      await env.withWorker(calls.wrap({ holdReservation: broken }), async (q) => {
        const { held, handle } = start(q, { hold: hold(addDays(today, 30)) });
        expect(await held).toMatchObject({ ok: false, code: 'backend_unavailable' });
        expect(await failure(handle.result())).toMatchObject({ error: 'WorkflowFailedError', type: 'backend_unavailable' });
      });
    });

    it('a refused change or cancellation fails its update and the reservation stays active', async () => {
      const calls = new ActivityCalls();
      let releases = 0;
      const activities = calls.wrap({
        holdReservation: async (h: HoldReservationInput): Promise<ReservationOutcome> => ({ ok: true, endDate: h.endDate }),
        changeReservation: refuse,
        releaseReservation: async (r: ReservationRelease) => (++releases === 1 ? refuse() : { status: r.to }),
      });
      await env.withWorker(activities, async (q) => {
        const { held, handle } = start(q, { hold: hold(addDays(today, 30)) });
        expect((await held).ok).toBe(true);
        expect(await failure(handle.executeUpdate(changeReservationUpdate, { args: [{ start_date: '0000-01-01' }] }))).toEqual({
          error: 'WorkflowUpdateFailedError',
          type: 'invalid_field',
          details: [refused],
        });
        expect(await failure(handle.executeUpdate(cancelReservationUpdate))).toMatchObject({ type: 'invalid_field' });
        expect(await handle.query(reservationStatusQuery)).toBe('active');
        expect(await handle.executeUpdate(cancelReservationUpdate)).toEqual({ status: 'cancelled' });
        expect(await handle.result()).toEqual({ status: 'cancelled' });
        expect(calls.of('changeReservation')).toHaveLength(1);
        await recordHistory(handle, 'reservation-window-change-cancel-refused');
      });
    });

    it('an expiry that cannot release keeps the reservation active (and cancellable) instead of failing', async () => {
      const calls = new ActivityCalls();
      let releases = 0;
      const activities = calls.wrap({
        holdReservation: async (h: HoldReservationInput): Promise<ReservationOutcome> => ({ ok: true, endDate: h.endDate }),
        releaseReservation: async (r: ReservationRelease) => (++releases === 1 ? refuse() : { status: r.to }),
      });
      await env.withWorker(activities, async (q) => {
        const { held, handle } = start(q, { hold: hold(yesterday) });
        expect((await held).ok).toBe(true);
        await calls.nth('releaseReservation');
        await eventually('the failed expiry settled', async () => (await handle.query(reservationStatusQuery)) === 'active');
        expect(await handle.executeUpdate(cancelReservationUpdate)).toEqual({ status: 'cancelled' });
        expect(await handle.result()).toEqual({ status: 'cancelled' });
      });
    });
  });
});
