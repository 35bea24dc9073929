import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { Cancelled } from '../../domain/orders';
import { cancelledUpdate, ORDER_CANCELLATION_WORKFLOW_TYPE } from '../../workflows/order-cancellation-messages';
import { orderCancellationWorkflowId } from '../../workflows/shared/ids';
import { eventually } from '../setup/eventually';
import { ActivityCalls, recordHistory, startWorkflowTestEnv, type WorkflowTestEnv } from '../setup/workflow-env';

/*
 * The order-cancellation workflow with its activity replaced by a double: the update answers once
 * the cancellation committed, a refusal fails the update with its code, and concurrent requests
 * share one run (one transaction).
 */
describe('order-cancellation workflow', () => {
  let env: WorkflowTestEnv;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
  });
  afterAll(() => env?.close());

  const cancel = (taskQueue: string, orderId: string) =>
    env.client.workflow.executeUpdateWithStart(cancelledUpdate, {
      startWorkflowOperation: new WithStartWorkflowOperation(ORDER_CANCELLATION_WORKFLOW_TYPE, {
        workflowId: orderCancellationWorkflowId(orderId),
        taskQueue,
        args: [{ orderId }],
        workflowIdConflictPolicy: 'USE_EXISTING',
        workflowIdReusePolicy: 'ALLOW_DUPLICATE',
        // Updates that arrive while the local activity runs are taken at the next workflow task,
        // which a long activity brings at 80 % of this timeout (10 s by default): the held
        // transaction of the concurrency test is let go sooner so.
        workflowTaskTimeout: '2s',
      }),
    });

  it('cancels the order once and answers what the transaction did', async () => {
    const calls = new ActivityCalls();
    await env.withWorker(calls.wrap({ cancelOrder: async (): Promise<Cancelled> => ({ ok: true, cancelledVouchers: 2 }) }), async (q) => {
      expect(await cancel(q, 'ord_1')).toEqual({ ok: true, cancelledVouchers: 2 });
      const handle = env.client.workflow.getHandle(orderCancellationWorkflowId('ord_1'));
      expect(await handle.result()).toEqual({ ok: true, cancelledVouchers: 2 });
      expect(calls.of('cancelOrder')).toEqual([{ key: handle.workflowId, orderId: 'ord_1' }]);
      await recordHistory(handle, 'order-cancellation-cancelled');
    });
  });

  it('fails the update with the refusal, its code as the failure type', async () => {
    const refusal: Cancelled = { ok: false, code: 'not_found', message: 'order not found' };
    await env.withWorker(new ActivityCalls().wrap({ cancelOrder: async () => refusal }), async (q) => {
      const err = await cancel(q, 'ord_2').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(WorkflowUpdateFailedError);
      const cause = (err as WorkflowUpdateFailedError).cause as ApplicationFailure;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect({ type: cause.type, details: cause.details }).toEqual({ type: 'not_found', details: [refusal] });
      // The run ends with the refusal as its result (a refusal is no failed workflow).
      const handle = env.client.workflow.getHandle(orderCancellationWorkflowId('ord_2'));
      expect(await handle.result()).toEqual(refusal);
      await recordHistory(handle, 'order-cancellation-refused');
    });
  });

  it('lets concurrent requests join the running cancellation: one transaction, every request answered', async () => {
    const calls = new ActivityCalls();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const doubles = calls.wrap({
      cancelOrder: async (): Promise<Cancelled> => {
        await gate;
        return { ok: true, cancelledVouchers: 3 };
      },
    });
    await env.withWorker(doubles, async (q) => {
      const answers = Promise.all([cancel(q, 'ord_3'), cancel(q, 'ord_3'), cancel(q, 'ord_3')]);
      // Hold the transaction until the three updates are accepted by the one run.
      const handle = env.client.workflow.getHandle(orderCancellationWorkflowId('ord_3'));
      await calls.nth('cancelOrder');
      await eventually('three cancel updates accepted', async () => {
        const { events } = await handle.fetchHistory();
        return events!.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes).length === 3;
      });
      release();
      expect(await answers).toEqual([1, 2, 3].map(() => ({ ok: true, cancelledVouchers: 3 })));
      expect(calls.of('cancelOrder')).toHaveLength(1);
    });
  });
});
