import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { addDays, utcDay } from '../../domain/dates';
import type { ClientStatus } from '../../domain/offer-lifecycle';
import {
  approveSignal,
  changeStatusUpdate,
  editOfferUpdate,
  rejectSignal,
  reviewTimelineQuery,
  statusQuery,
} from '../../workflows/offer-review-messages';
import { OfferStatusKey } from '../../workflows/shared/search-attributes';
import { refusalIn } from '../../workflows/shared/step-failures';
import { eventually } from '../setup/eventually';
import { offerReviewDoubles, offerReviewStarter } from '../setup/offer-review-env';
import { ActivityCalls, recordHistory, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';

/*
 * The offer-review workflow with its activities replaced by doubles: what it records, when, and
 * what it refuses. Calendar windows (start_date, end_date) are dates; a test cannot shorten a day,
 * so the timers are driven by dates already past or by the due times the input carries.
 */
describe('offer-review workflow', () => {
  let env: WorkflowTestEnv;
  let start: ReturnType<typeof offerReviewStarter>;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
    start = offerReviewStarter(env, 'test');
  });
  afterAll(() => env?.close());

  const today = utcDay();
  const doubles = (calls: ActivityCalls) => offerReviewDoubles(calls);
  const move = (h: WorkflowHandle, to: ClientStatus) => h.executeUpdate(changeStatusUpdate, { args: [{ to }] });
  const refusal = async (p: Promise<unknown>) => {
    const err = await p.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (err as WorkflowUpdateFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    return { type: (cause as ApplicationFailure).type, message: (cause as ApplicationFailure).message };
  };
  const kinds = async (h: WorkflowHandle) => (await h.query(reviewTimelineQuery)).map((e) => (e.kind === 'status' ? e.to : e.kind));
  it('reminds once, is approved with publication deferred to start_date, ignores a late decision, is suspended and resumed', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(doubles(calls), async (taskQueue) => {
      const h = await start(taskQueue, {
        status: 'pending',
        startDate: addDays(today, 1),
        endDate: addDays(today, 30),
        reviewReminderSeconds: 1,
      });
      const started = Date.now();
      expect(await calls.nth('recordReviewOverdue')).toMatchObject({ key: `${h.workflowId}:0`, waitingSeconds: 1 });
      expect(Date.now() - started).toBeGreaterThanOrEqual(900);
      // One reminder per round: the timer after it waits for end_date or publication, days away.
      const nextTimer = await eventually('the timer after the reminder', async () => {
        const { events } = await h.fetchHistory();
        const reminded = events!.findIndex((e) => e.activityTaskCompletedEventAttributes);
        return reminded >= 0 && events!.slice(reminded).find((e) => e.timerStartedEventAttributes)?.timerStartedEventAttributes;
      });
      expect(Number(nextTimer.startToFireTimeout!.seconds)).toBeGreaterThan(3600);

      await h.signal(approveSignal, { reviewer: 'rita', reason: 'looks right' });
      expect(await calls.nth('recordOfferStatus')).toEqual({
        key: `${h.workflowId}:1`,
        offerId: expect.any(String),
        to: 'approved',
        actor: 'review_team',
        reviewer: 'rita',
        reason: 'looks right',
        publishDeferred: true,
      });
      await eventually('the offer approved', async () => (await h.query(statusQuery)) === 'approved');

      // A decision on an offer that is no longer pending is noted for operators, and nothing is written.
      await h.signal(rejectSignal, { reviewer: 'sam', reason: 'too late' });
      const ignored = await eventually('the late decision recorded as ignored', async () =>
        (await h.query(reviewTimelineQuery)).find((e) => e.kind === 'ignored'),
      );
      expect(ignored).toMatchObject({ decision: 'rejected', reviewer: 'sam', refused: expect.stringContaining('pending') });

      expect(await move(h, 'suspended')).toBe('suspended');
      expect(await move(h, 'resumed')).toBe('resumed');
      const moves = calls.of('recordOfferStatus').slice(1);
      expect(moves[0]).toMatchObject({ to: 'suspended', actor: 'advertiser' });
      expect(moves[0]).not.toHaveProperty('publishDeferred');
      expect(moves[1]).toMatchObject({ to: 'resumed', actor: 'advertiser', publishDeferred: true });
      expect((await h.describe()).typedSearchAttributes.get(OfferStatusKey)).toBe('resumed');

      expect(await move(h, 'cancelled')).toBe('cancelled');
      expect(await h.result()).toBe('cancelled');
      expect(await kinds(h)).toEqual(['started', 'reminder', 'approved', 'ignored', 'suspended', 'resumed', 'cancelled']);
      expect(calls.of('recordReviewOverdue')).toHaveLength(1);
      expect(calls.of('publishOffer')).toEqual([]);
      await recordHistory(h, 'offer-review-approved-suspended-resumed');
    });
  });

  it('refuses moves and edits the state machine forbids as update failures, before anything is written', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(doubles(calls), async (taskQueue) => {
      const h = await start(taskQueue, { status: 'pending', startDate: today, endDate: addDays(today, 30), reviewReminderSeconds: 3600 });
      await h.signal(rejectSignal, { reviewer: 'rita', reason: 'no price' });
      expect(await calls.nth('recordOfferStatus')).toMatchObject({ to: 'rejected', actor: 'review_team', reason: 'no price' });
      await eventually('the offer rejected', async () => (await h.query(statusQuery)) === 'rejected');

      expect(await refusal(move(h, 'resumed'))).toEqual({
        type: 'InvalidTransition',
        message: 'an offer that is rejected can move to withdrawn, cancelled, not resumed',
      });
      const edit = { input: { start_date: today, end_date: addDays(today, 10) } as never, changedFields: ['end_date'] };
      expect((await refusal(h.executeUpdate(editOfferUpdate, { args: [edit] }))).type).toBe('InvalidTransition');
      expect(await move(h, 'cancelled')).toBe('cancelled');
      expect(await h.result()).toBe('cancelled');
      expect(calls.of('recordOfferStatus').map((c) => (c as { to: string }).to)).toEqual(['rejected', 'cancelled']);
      expect(calls.of('recordOfferEdit')).toEqual([]);
    });
  });

  it('is withdrawn, edited and resubmitted, then approved for sale at once; an edit moving end_date into the past closes it', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(doubles(calls), async (taskQueue) => {
      const h = await start(taskQueue, {
        status: 'pending',
        startDate: addDays(today, 5),
        endDate: addDays(today, 30),
        reviewReminderSeconds: 3600,
      });
      expect(await move(h, 'withdrawn')).toBe('withdrawn');
      const input = { title: 'Two for one', start_date: today, end_date: addDays(today, 20) } as never;
      await h.executeUpdate(editOfferUpdate, { args: [{ input, changedFields: ['title', 'start_date'] }] });
      expect(calls.of('recordOfferEdit')).toEqual([
        { key: `${h.workflowId}:1`, offerId: expect.any(String), input, changedFields: ['title', 'start_date'] },
      ]);
      expect(await move(h, 'pending')).toBe('pending');
      await h.signal(approveSignal);
      // The edited start_date (today) is what publication waits for now: none.
      expect(await calls.nth('recordOfferStatus', 3)).toMatchObject({ to: 'approved', publishDeferred: false });
      await eventually('the offer approved', async () => (await h.query(statusQuery)) === 'approved');

      expect(await move(h, 'withdrawn')).toBe('withdrawn');
      const past = addDays(today, -1);
      await h.executeUpdate(editOfferUpdate, {
        args: [{ input: { start_date: past, end_date: past } as never, changedFields: ['end_date'] }],
      });
      expect(await h.result()).toBe('closed');
      expect(calls.of('recordOfferStatus').at(-1)).toMatchObject({ to: 'closed', actor: 'system' });
      expect(await kinds(h)).toEqual(['started', 'withdrawn', 'edited', 'pending', 'approved', 'withdrawn', 'edited', 'closed']);
      await recordHistory(h, 'offer-review-withdrawn-edited-closed');
    });
  });

  it('closes at once when started after its end_date', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(doubles(calls), async (taskQueue) => {
      const h = await start(taskQueue, {
        status: 'approved',
        startDate: addDays(today, -9),
        endDate: addDays(today, -1),
        reviewReminderSeconds: 3600,
      });
      expect(await h.result()).toBe('closed');
      expect(calls.of('recordOfferStatus')).toEqual([
        { key: `${h.workflowId}:0`, offerId: expect.any(String), to: 'closed', actor: 'system' },
      ]);
    });
  });

  it('publishes when its start_date begins: the due time carried across continue-as-new', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(doubles(calls), async (taskQueue) => {
      const dueAt = Date.now() + 1500;
      const h = await start(taskQueue, {
        status: 'approved',
        startDate: today,
        endDate: addDays(today, 30),
        reviewReminderSeconds: 3600,
        step: 7,
        reminderDueAtMs: null,
        publishDueAtMs: dueAt,
      });
      expect(await calls.nth('publishOffer')).toEqual({ key: `${h.workflowId}:7`, offerId: expect.any(String) });
      expect(calls.calls.find((c) => c.name === 'publishOffer')!.at).toBeGreaterThanOrEqual(dueAt - 100);
      expect(await move(h, 'cancelled')).toBe('cancelled');
      expect(await h.result()).toBe('cancelled');
      expect(calls.of('publishOffer')).toHaveLength(1);
      await recordHistory(h, 'offer-review-publish-at-start-date');
    });
  });

  it('answers an edit whose step was refused for good with the refusal, and the offer stays as it was', async () => {
    const calls = new ActivityCalls();
    const refused = {
      ok: false,
      code: 'invalid_field',
      message: 'a value cannot be stored: date/time field value out of range',
      sqlstate: '22008',
    };
    const activities = {
      ...doubles(calls),
      // As the worker's interceptor fails a step Postgres refuses (worker/activity-failures.ts).
      ...calls.wrap({
        recordOfferEdit: async () => {
          throw ApplicationFailure.create({ message: refused.message, type: 'Refused', nonRetryable: true, details: [refused] });
        },
      }),
    };
    await env.withWorker(activities, async (taskQueue) => {
      const h = await start(taskQueue, { status: 'withdrawn', startDate: today, endDate: addDays(today, 30), reviewReminderSeconds: 3600 });
      const input = { title: 'Year zero', start_date: '0000-01-01', end_date: addDays(today, 20) } as never;
      const err = (await h
        .executeUpdate(editOfferUpdate, { args: [{ input, changedFields: ['start_date'] }] })
        .catch((e: unknown) => e)) as WorkflowUpdateFailedError;
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
      expect(refusalIn(err.cause)).toEqual(refused);
      expect(calls.of('recordOfferEdit')).toHaveLength(1);
      expect(await h.query(statusQuery)).toBe('withdrawn');
      expect(await move(h, 'cancelled')).toBe('cancelled');
      expect(await h.result()).toBe('cancelled');
      expect(await kinds(h)).toEqual(['started', 'cancelled']);
      await recordHistory(h, 'offer-review-edit-refused');
    });
  });

  it('does not retry a step that fails as Refused, even thrown retryable (the step policy), and a failed timer step leaves the offer usable', async () => {
    const calls = new ActivityCalls();
    const refused = { ok: false, code: 'invalid_field', message: 'a value cannot be stored' };
    const activities = {
      ...doubles(calls),
      ...calls.wrap({
        recordOfferStatus: async (c: { to: string }) => {
          if (c.to === 'withdrawn') throw ApplicationFailure.retryable(refused.message, 'Refused', refused);
          return { reviewDueAtMs: null };
        },
        publishOffer: async () => {
          throw ApplicationFailure.create({ message: refused.message, type: 'Refused', nonRetryable: true, details: [refused] });
        },
      }),
    };
    await env.withWorker(activities, async (taskQueue) => {
      const h = await start(taskQueue, {
        status: 'approved',
        startDate: today,
        endDate: addDays(today, 30),
        reviewReminderSeconds: 3600,
        reminderDueAtMs: null,
        publishDueAtMs: Date.now() + 500,
      });
      // The publication at start_date is refused for good: the workflow goes on, the offer as it was.
      await calls.nth('publishOffer');
      const err = await move(h, 'withdrawn').catch((e: unknown) => e);
      expect(refusalIn((err as WorkflowUpdateFailedError).cause)).toEqual(refused);
      expect(calls.of('recordOfferStatus')).toHaveLength(1);
      expect(await h.query(statusQuery)).toBe('approved');
      expect(await move(h, 'cancelled')).toBe('cancelled');
      expect(await h.result()).toBe('cancelled');
      expect(calls.of('publishOffer')).toHaveLength(1);
      await recordHistory(h, 'offer-review-publish-refused');
    });
  });
});
