import { CALLBACK_DISPATCHER_WORKFLOW_TYPE, type CallbackDispatcherWorkflow } from '../../workflows/callback-dispatcher-messages';
import { callbackDispatcherWorkflowId } from '../../workflows/shared/ids';
import { ActivityCalls, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';

/*
 * The callback outbox dispatcher with its pump replaced by a double: it runs the pump with the
 * input's durations, again and again, and continues as new (with the same input) after a hundred
 * runs so its history stays small. The hundred is a constant, not an input: a pump that returns at
 * once makes it come quickly.
 */
describe('callback-dispatcher workflow', () => {
  let env: WorkflowTestEnv;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
  });
  afterAll(() => env?.close());

  const start = (taskQueue: string, input?: { runForMs?: number; pollMs?: number }) =>
    env.client.workflow.start<CallbackDispatcherWorkflow>(CALLBACK_DISPATCHER_WORKFLOW_TYPE, {
      workflowId: callbackDispatcherWorkflowId(taskQueue),
      taskQueue,
      args: input ? [input] : [],
    });

  it('pumps with the default durations when started without input', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(calls.wrap({ pumpCallbackOutbox: async () => ({ events: 0 }) }), async (q) => {
      const handle = await start(q);
      expect(await calls.nth('pumpCallbackOutbox')).toEqual({ runForMs: 60_000, pollMs: 500 });
      await handle.terminate('test over');
    });
  });

  it('continues as new with the same input after a hundred pumps', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(calls.wrap({ pumpCallbackOutbox: async () => ({ events: 0 }) }), async (q) => {
      const handle = await start(q, { runForMs: 5, pollMs: 1 });
      await calls.nth('pumpCallbackOutbox', 102, 60_000);
      const now = await handle.describe();
      expect(now.runId).not.toBe(handle.firstExecutionRunId);
      const first = env.client.workflow.getHandle(handle.workflowId, handle.firstExecutionRunId);
      expect((await first.describe()).status.name).toBe('CONTINUED_AS_NEW');
      const { events } = await first.fetchHistory();
      expect(events!.filter((e) => e.activityTaskScheduledEventAttributes)).toHaveLength(100);
      expect(new Set(calls.of('pumpCallbackOutbox').map((a) => JSON.stringify(a)))).toEqual(new Set(['{"runForMs":5,"pollMs":1}']));
      await handle.terminate('test over');
    });
  });
});
