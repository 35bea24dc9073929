import type { WorkflowHandle } from '@temporalio/client';
import { addDays, utcDay } from '../../domain/dates';
import { changeStatusUpdate, reviewDueMovedSignal, reviewTimelineQuery } from '../../workflows/offer-review-messages';
import { eventually } from '../setup/eventually';
import { offerReviewDoubles, offerReviewStarter } from '../setup/offer-review-env';
import { ActivityCalls, recordHistory, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';

/*
 * The review SLA's timer (decision 0078): `offer.review_overdue` once when a pending review passes
 * its due time, which comes from Postgres (the start's input, the status activity's answer on a
 * resubmission, the `reviewDueMoved` signal when an operator moves the SLA). The lane's dev server
 * runs in real time, so the due times are a second or two away, as the lane's other timers are.
 */
describe('offer-review workflow: the review SLA', () => {
  let env: WorkflowTestEnv;
  let start: ReturnType<typeof offerReviewStarter>;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
    start = offerReviewStarter(env, 'sla');
  });
  afterAll(() => env?.close());

  const today = utcDay();
  const HOUR_MS = 3600_000;
  /** The timer the workflow waits on now (the last one started), in seconds. */
  const lastTimerSeconds = async (h: WorkflowHandle) => {
    const { events } = await h.fetchHistory();
    const timers = events!.filter((e) => e.timerStartedEventAttributes);
    return Number(timers[timers.length - 1]?.timerStartedEventAttributes?.startToFireTimeout?.seconds ?? NaN);
  };

  it('fires once at the moved due time, not again when moved into the past, and again in the next round', async () => {
    const calls = new ActivityCalls();
    // The status activity answers the new round's due time, as store/offers.ts computes it from the SLA.
    const doubles = offerReviewDoubles(calls, {
      recordOfferStatus: async (c) => ({ reviewDueAtMs: c.to === 'pending' ? Date.now() + 1000 : null }),
      recordReviewOverdue: async () => ({ recorded: true, waitingSeconds: 1, dueAtMs: null }),
    });
    await env.withWorker(doubles, async (taskQueue) => {
      const h = await start(taskQueue, {
        status: 'pending',
        startDate: today,
        endDate: addDays(today, 30),
        reminderDueAtMs: Date.now() + HOUR_MS,
      });
      await eventually('the workflow waiting for its due time', async () => (await lastTimerSeconds(h)) > 3000);
      // The SLA moved: due in a second.
      await h.signal(reviewDueMovedSignal, { dueAtMs: Date.now() + 1000 });
      expect(await calls.nth('recordReviewOverdue')).toMatchObject({ key: `${h.workflowId}:0` });
      // Moved again, into the past: the review was reported overdue already; nothing more.
      await h.signal(reviewDueMovedSignal, { dueAtMs: Date.now() - 1000 });
      await eventually('the signal handled', async () => {
        const { events } = await h.fetchHistory();
        const signalled = events!.filter((e) => e.workflowExecutionSignaledEventAttributes);
        const second = events!.indexOf(signalled[1]);
        return second >= 0 && events!.slice(second).some((e) => e.workflowTaskCompletedEventAttributes);
      });
      expect(await lastTimerSeconds(h)).toBeGreaterThan(3600);
      expect(calls.of('recordReviewOverdue')).toHaveLength(1);

      // A new round (withdrawn, resubmitted): due again a second after the resubmission.
      await h.executeUpdate(changeStatusUpdate, { args: [{ to: 'withdrawn' }] });
      await h.executeUpdate(changeStatusUpdate, { args: [{ to: 'pending' }] });
      expect(await calls.nth('recordReviewOverdue', 2)).toMatchObject({ offerId: expect.any(String) });
      // The activity has been called; the workflow notes the reminder once its answer is back.
      const kinds = async () => (await h.query(reviewTimelineQuery)).map((e) => (e.kind === 'status' ? e.to : e.kind));
      await eventually('the second reminder noted', async () => (await kinds()).length === 5);
      expect(await kinds()).toEqual(['started', 'reminder', 'withdrawn', 'pending', 'reminder']);
      await h.executeUpdate(changeStatusUpdate, { args: [{ to: 'cancelled' }] });
      expect(await h.result()).toBe('cancelled');
      expect(calls.of('recordReviewOverdue')).toHaveLength(2);
      await recordHistory(h, 'offer-review-sla-moved');
    });
  });

  it('waits again when Postgres holds a later due time (the SLA lengthened, its signal still on the way)', async () => {
    const calls = new ActivityCalls();
    let answers = 0;
    const doubles = offerReviewDoubles(calls, {
      recordReviewOverdue: async () =>
        ++answers === 1
          ? { recorded: false, waitingSeconds: 1, dueAtMs: Date.now() + 1000 }
          : { recorded: true, waitingSeconds: 2, dueAtMs: null },
    });
    await env.withWorker(doubles, async (taskQueue) => {
      const h = await start(taskQueue, {
        status: 'pending',
        startDate: today,
        endDate: addDays(today, 30),
        reminderDueAtMs: Date.now() + 500,
      });
      await calls.nth('recordReviewOverdue', 2);
      const timeline = await eventually('the reminder noted', async () => {
        const t = await h.query(reviewTimelineQuery);
        return t.some((e) => e.kind === 'reminder') && t;
      });
      expect(timeline.filter((e) => e.kind === 'reminder')).toEqual([expect.objectContaining({ waitingSeconds: 2 })]);
      await h.executeUpdate(changeStatusUpdate, { args: [{ to: 'cancelled' }] });
      expect(calls.of('recordReviewOverdue')).toHaveLength(2);
    });
  });
});
