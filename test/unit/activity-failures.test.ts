import type { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { Failure } from '../../domain/failures';
import type { Logger } from '../../platform/logger';
import { registry } from '../../platform/metrics';
import { activityFailureInterceptors } from '../../worker/activity-failures';

/*
 * The worker's sorting of activity failures (issue 19): what retrying cannot fix fails for good
 * with the refusal; the rest stays retryable, logged with its stack once and at the stuck attempt once.
 */
describe('activity failure interceptor', () => {
  const logged: Array<{ level: string; msg: string; obj: Record<string, unknown> }> = [];
  const log = {
    warn: (obj: Record<string, unknown>, msg: string) => logged.push({ level: 'warn', msg, obj }),
    error: (obj: Record<string, unknown>, msg: string) => logged.push({ level: 'error', msg, obj }),
  } as unknown as Logger;
  beforeEach(() => (logged.length = 0));

  /** Runs an activity that throws `err` on attempt `attempt`; resolves to what the worker would see thrown. */
  const attemptWith = (err: unknown, attempt: number, activityType = 'recordOfferEdit') => {
    const ctx = { info: { activityType, attempt, workflowExecution: { workflowId: 'offer-review:ofr_1', runId: 'r' } } };
    const { inbound } = activityFailureInterceptors(log, 5)(ctx as unknown as Context);
    return inbound!.execute!({ args: [], headers: {} }, () => Promise.reject(err)).catch((e: unknown) => e);
  };
  const pgError = (code: string) => Object.assign(new Error('date/time field value out of range: "0000-01-01"'), { code });

  it('fails a value Postgres refuses for good, carrying the refusal', async () => {
    const thrown = (await attemptWith(pgError('22008'), 1)) as ApplicationFailure;
    expect(thrown).toBeInstanceOf(ApplicationFailure);
    expect(thrown).toMatchObject({ type: 'Refused', nonRetryable: true });
    expect(thrown.details).toEqual([expect.objectContaining({ ok: false, code: 'invalid_field', sqlstate: '22008' })]);
  });

  it('fails a domain refusal for good with its code and facts', async () => {
    const thrown = (await attemptWith(
      new Failure('conflict', 'initial_quantity 1 is below the 3 units sold', { field: 'initial_quantity' }),
      3,
    )) as ApplicationFailure;
    expect(thrown).toMatchObject({ type: 'Refused', nonRetryable: true });
    expect(thrown.details).toEqual([
      { ok: false, code: 'conflict', message: 'initial_quantity 1 is below the 3 units sold', field: 'initial_quantity' },
    ]);
  });

  it('keeps other faults retryable: the first attempt as thrown, later ones without a stack, one error line at the stuck attempt', async () => {
    const fault = Object.assign(new Error('connection terminated'), { code: '57P01' });
    expect(await attemptWith(fault, 1)).toBe(fault);
    const later = (await attemptWith(fault, 2)) as ApplicationFailure;
    expect(later).toMatchObject({ type: 'Error', nonRetryable: false, category: 'BENIGN', message: 'connection terminated' });
    for (const attempt of [3, 4, 5, 6, 7]) await attemptWith(fault, attempt);
    expect(logged.filter((l) => l.level === 'error')).toEqual([
      expect.objectContaining({
        obj: expect.objectContaining({ activity: 'recordOfferEdit', attempt: 5, workflow_id: 'offer-review:ofr_1' }),
      }),
    ]);
    const metrics = await registry.getSingleMetricAsString('activity_attempts_stuck_total');
    expect(metrics).toContain('activity_attempts_stuck_total{activity="recordOfferEdit"} 3');
  });

  it('passes an ApplicationFailure thrown on purpose through unchanged', async () => {
    const own = ApplicationFailure.nonRetryable('gone', 'StockConflict');
    expect(await attemptWith(own, 2)).toBe(own);
  });

  it('never fails a poller (the callback outbox pump) for good: that would stop every callback', async () => {
    const thrown = (await attemptWith(pgError('23503'), 1, 'pumpCallbackOutbox')) as Error;
    expect(thrown).not.toBeInstanceOf(ApplicationFailure);
    expect((thrown as Error & { code: string }).code).toBe('23503');
  });
});
