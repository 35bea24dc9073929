import type { WorkflowHandle } from '@temporalio/client';
import { addDays, endOfUtcDayMs, utcDay } from '../../domain/dates';
import { changeStatusUpdate, editOfferUpdate, statusQuery } from '../../workflows/offer-review-messages';
import { eventually } from '../setup/eventually';
import { offerReviewDoubles, offerReviewStarter } from '../setup/offer-review-env';
import { ActivityCalls, recordHistory, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';

/*
 * The offer-review workflow at its vouchers' expiry, with its activities replaced. A test cannot
 * shorten a day: expiry dates already past drive the timer, and a date ahead is checked by the
 * timer the workflow starts.
 */
describe('offer-review workflow at vouchers_expire.on', () => {
  let env: WorkflowTestEnv;
  let start: ReturnType<typeof offerReviewStarter>;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
    start = offerReviewStarter(env, 'exp');
  });
  afterAll(() => env?.close());

  const today = utcDay();
  const doubles = (calls: ActivityCalls) => offerReviewDoubles(calls);
  const move = (h: WorkflowHandle, to: 'withdrawn' | 'cancelled') => h.executeUpdate(changeStatusUpdate, { args: [{ to }] });
  const edit = (h: WorkflowHandle, on: string) =>
    h.executeUpdate(editOfferUpdate, {
      args: [
        {
          input: { start_date: addDays(today, -10), end_date: addDays(today, 30), vouchers_expire: { on } } as never,
          changedFields: ['vouchers_expire'],
        },
      ],
    });
  /** The duration (ms) of the first timer started after the last completed activity (from event `from` on), once there is one. */
  const timerAfterLastActivity = async (h: WorkflowHandle, from = 0) => {
    const events = (await h.fetchHistory()).events!.slice(from);
    const done = events.map((e) => !!e.activityTaskCompletedEventAttributes).lastIndexOf(true);
    const t = events.slice(done + 1).find((e) => e.timerStartedEventAttributes)?.timerStartedEventAttributes?.startToFireTimeout;
    return t ? Number(t.seconds) * 1000 : undefined;
  };

  it('records the expiry once when vouchers_expire.on is over, like selling out, and stays on its lifecycle', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(doubles(calls), async (taskQueue) => {
      const on = addDays(today, -1);
      const h = await start(taskQueue, {
        status: 'approved',
        startDate: addDays(today, -10),
        endDate: addDays(today, 30),
        vouchersExpireOn: on,
        reviewReminderSeconds: 3600,
      });
      expect(await calls.nth('recordVouchersExpired')).toEqual({
        key: `${h.workflowId}:0`,
        offerId: expect.any(String),
        vouchersExpireOn: on,
      });
      // The offer keeps its status (it closes at end_date as any offer); only its sales ended. The
      // next timer waits for end_date, not for the expiry again.
      expect(await h.query(statusQuery)).toBe('approved');
      const timer = await eventually('the timer after the expiry', () => timerAfterLastActivity(h));
      expect(timer).toBeGreaterThan(29 * 86_400_000);
      expect(await move(h, 'cancelled')).toBe('cancelled');
      expect(await h.result()).toBe('cancelled');
      expect(calls.of('recordVouchersExpired')).toHaveLength(1);
      expect(calls.of('recordOfferStatus')).toEqual([expect.objectContaining({ to: 'cancelled' })]);
    });
  });

  it('moves its timer with an edit of vouchers_expire.on: later waits for the new day, past records it at once', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(doubles(calls), async (taskQueue) => {
      const h = await start(taskQueue, {
        status: 'approved',
        startDate: addDays(today, -10),
        endDate: addDays(today, 30),
        vouchersExpireOn: addDays(today, 20),
        reviewReminderSeconds: 3600,
      });
      expect(await move(h, 'withdrawn')).toBe('withdrawn');
      const seen = (await h.fetchHistory()).events!.length;
      await edit(h, addDays(today, 5));
      const timer = await eventually('the timer after the edit', () => timerAfterLastActivity(h, seen));
      const expected = endOfUtcDayMs(addDays(today, 5)) - Date.now();
      expect(Math.abs(timer - expected)).toBeLessThan(60_000);
      expect(calls.of('recordVouchersExpired')).toEqual([]);

      // An edit the API would refuse, to drive the timer: a date already over is recorded at once.
      const past = addDays(today, -2);
      await edit(h, past);
      expect(await calls.nth('recordVouchersExpired')).toMatchObject({ vouchersExpireOn: past });
      expect(await move(h, 'cancelled')).toBe('cancelled');
      expect(await h.result()).toBe('cancelled');
      expect(calls.of('recordVouchersExpired')).toHaveLength(1);
      await recordHistory(h, 'offer-review-vouchers-expiry');
    });
  });
});
