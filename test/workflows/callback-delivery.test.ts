import type { AttemptOutcome } from '../../activities/callbacks/delivery';
import type { NextDelivery } from '../../activities/callbacks/delivery';
import { wakeCallbackLane } from '../../workflows/callback-delivery-messages';
import { callbackDeliveryWorkflowId } from '../../workflows/shared/ids';
import { eventually } from '../setup/eventually';
import { ActivityCalls, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';

/*
 * The callback-delivery workflow of one lane with its activities replaced by doubles: the waits
 * between attempts are the ones the attempt answers (the retry schedule is applied by the
 * activity, from CALLBACK_RETRY_SCHEDULE), a delivery that gives up lets the next one go, and the
 * lane sleeps until woken. Its idle end (10 minutes without work) is a constant, not an input:
 * these tests terminate the lane instead of waiting for it.
 */
describe('callback-delivery workflow', () => {
  let env: WorkflowTestEnv;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
  });
  afterAll(() => env?.close());

  let lanes = 0;
  /** Doubles answering from queues: each call of nextCallbackDelivery takes the next entry (null once empty). */
  const doubles = (calls: ActivityCalls, next: Array<NextDelivery | null>, attempts: AttemptOutcome[]) =>
    calls.wrap({
      nextCallbackDelivery: async () => next.shift() ?? null,
      attemptCallbackDelivery: async () => attempts.shift() ?? { outcome: 'delivered', statusCode: 200 },
    });
  const wake = (taskQueue: string, lane: { endpointId: string; offerId: string }) =>
    wakeCallbackLane(env.client.workflow, { taskQueue, attemptTimeoutSeconds: 5 }, lane);
  const lane = () => ({ endpointId: `cbe_test${++lanes}`, offerId: 'ofr_a' });
  const at = (calls: ActivityCalls, name: 'attemptCallbackDelivery' | 'nextCallbackDelivery') =>
    calls.calls.filter((c) => c.name === name).map((c) => c.at);

  it('waits between attempts as each failed attempt says, and goes on when one is delivered', async () => {
    const calls = new ActivityCalls();
    const attempts: AttemptOutcome[] = [
      { outcome: 'retry', retryInSeconds: 1, statusCode: 500 },
      { outcome: 'retry', retryInSeconds: 2, statusCode: null },
      { outcome: 'delivered', statusCode: 204 },
    ];
    await env.withWorker(doubles(calls, [{ deliveryId: 'cbd_1', waitSeconds: 0 }], attempts), async (q) => {
      const l = lane();
      await wake(q, l);
      await calls.nth('nextCallbackDelivery', 2); // after the delivery: the lane looks for the next one
      expect(calls.of('attemptCallbackDelivery')).toEqual([1, 2, 3].map(() => ({ deliveryId: 'cbd_1' })));
      const [a1, a2, a3] = at(calls, 'attemptCallbackDelivery');
      expect(a2 - a1).toBeGreaterThanOrEqual(900);
      expect(a3 - a2).toBeGreaterThanOrEqual(1900);
      await env.client.workflow.getHandle(callbackDeliveryWorkflowId(l.endpointId, l.offerId)).terminate('test over');
    });
  });

  it('gives a delivery up when its attempt says so, then sends the next one after its scheduled wait', async () => {
    const calls = new ActivityCalls();
    const next = [
      { deliveryId: 'cbd_1', waitSeconds: 0 },
      { deliveryId: 'cbd_2', waitSeconds: 1 },
    ];
    const attempts: AttemptOutcome[] = [{ outcome: 'failed', statusCode: 500 }, { outcome: 'delivered' }];
    await env.withWorker(doubles(calls, next, attempts), async (q) => {
      const l = lane();
      await wake(q, l);
      await calls.nth('nextCallbackDelivery', 3);
      expect(calls.of('attemptCallbackDelivery')).toEqual([{ deliveryId: 'cbd_1' }, { deliveryId: 'cbd_2' }]);
      const [, second] = at(calls, 'nextCallbackDelivery');
      expect(at(calls, 'attemptCallbackDelivery')[1] - second).toBeGreaterThanOrEqual(900);
      await env.client.workflow.getHandle(callbackDeliveryWorkflowId(l.endpointId, l.offerId)).terminate('test over');
    });
  });

  it('sleeps while the lane is empty or its delivery is leased by the dispatcher, until woken', async () => {
    const calls = new ActivityCalls();
    const next: Array<NextDelivery | null> = [
      null,
      { deliveryId: 'cbd_1', waitSeconds: 600, busy: true },
      { deliveryId: 'cbd_1', waitSeconds: 0 },
    ];
    await env.withWorker(doubles(calls, next, []), async (q) => {
      const l = lane();
      const handle = env.client.workflow.getHandle(callbackDeliveryWorkflowId(l.endpointId, l.offerId));
      await wake(q, l);
      await calls.nth('nextCallbackDelivery');
      // Empty: the lane waits for a wake (with its idle timer running).
      await eventually('the idle timer started', async () => (await timers(handle)) === 1);
      expect(calls.of('nextCallbackDelivery')).toHaveLength(1);
      await wake(q, l);
      await calls.nth('nextCallbackDelivery', 2);
      // Leased by the dispatcher: no attempt of its own, until the dispatcher wakes it.
      await eventually('a second timer started', async () => (await timers(handle)) === 2);
      expect(calls.of('attemptCallbackDelivery')).toEqual([]);
      await wake(q, l);
      expect(await calls.nth('attemptCallbackDelivery')).toEqual({ deliveryId: 'cbd_1' });
      await handle.terminate('test over');
    });
  });
});

/** How many timers the lane has started so far (its waits). */
async function timers(handle: { fetchHistory(): Promise<{ events?: Array<{ timerStartedEventAttributes?: unknown }> | null }> }) {
  return (await handle.fetchHistory()).events!.filter((e) => e.timerStartedEventAttributes).length;
}
