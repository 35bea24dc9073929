import { WithStartWorkflowOperation, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { OrderSnapshot, Placed, PlaceOrderInput } from '../../../domain/orders';
import {
  ORDER_WORKFLOW_TYPE,
  placedUpdate,
  type OrderFulfilmentInput,
  type OrderFulfilmentWorkflow,
  type PlacedAnswer,
} from '../../../workflows/order-fulfilment-messages';
import { orderWorkflowId } from '../../../workflows/shared/ids';
import { ActivityCalls, recordHistory, startWorkflowTestEnv, type WorkflowTestEnv } from '../../setup/workflow-env';

/*
 * The order-fulfilment workflow with its placing activity replaced by a double: the `placed`
 * update answers what placing answered, a refused order fails its workflow (freeing the
 * order_number), a passing fault is retried.
 */
describe('order-fulfilment workflow', () => {
  let env: WorkflowTestEnv;
  beforeAll(async () => {
    env = await startWorkflowTestEnv();
  });
  afterAll(() => env?.close());

  let orders = 0;
  const input = (): OrderFulfilmentInput['order'] => {
    const n = ++orders;
    return {
      orderId: `ord_test${n}`,
      clientId: 'cli_test',
      orderNumber: `n-${n}`,
      accountId: null,
      applicationId: null,
      customerName: 'Ada Lovelace',
      shippingAddress: null,
      items: [{ offer_id: 'ofr_a', quantity: 2 }],
    };
  };
  const snapshot = (orderId: string): OrderSnapshot => ({
    id: orderId,
    order_number: 'n',
    status: 'active',
    account_id: null,
    application_id: null,
    customer_name: 'Ada Lovelace',
    shipping_address: null,
    purchased_at: '2026-01-02T03:04:05.000Z',
    cancelled_at: null,
    items: [{ offer_id: 'ofr_a', quantity: 2 }],
    vouchers: [],
    voucher_count: 0,
  });
  /** Starts the order with the `placed` Update, as an API without a worker in its process does. */
  const place = (taskQueue: string, order: OrderFulfilmentInput['order']) => {
    const startWorkflowOperation = new WithStartWorkflowOperation<OrderFulfilmentWorkflow>(ORDER_WORKFLOW_TYPE, {
      workflowId: orderWorkflowId(order.clientId, order.orderNumber),
      taskQueue,
      args: [{ order }],
      workflowIdConflictPolicy: 'FAIL',
    });
    return { answer: env.client.workflow.executeUpdateWithStart(placedUpdate, { startWorkflowOperation }), startWorkflowOperation };
  };

  it('answers the placed order through the update, then completes', async () => {
    const calls = new ActivityCalls();
    const order = input();
    const doubles = calls.wrap({
      placeOrder: async (o: PlaceOrderInput): Promise<PlacedAnswer> => ({
        ok: true,
        orderId: o.orderId,
        issued: 2,
        orderSnapshot: snapshot(o.orderId),
      }),
    });
    await env.withWorker(doubles, async (taskQueue) => {
      const { answer, startWorkflowOperation } = place(taskQueue, order);
      expect(await answer).toEqual({ ok: true, orderId: order.orderId, issued: 2, orderSnapshot: snapshot(order.orderId) });
      const handle = await startWorkflowOperation.workflowHandle();
      expect(await handle.result()).toEqual({ orderId: order.orderId, status: 'active' });
      expect(calls.of('placeOrder')).toEqual([{ ...order, workflowId: handle.workflowId }]);
      await recordHistory(handle, 'order-fulfilment-placed');
    });
  });

  it('answers a refusal, and the workflow fails with its code so the order_number can be used again', async () => {
    const calls = new ActivityCalls();
    const order = input();
    const refusal: Placed = { ok: false, code: 'insufficient_stock', message: 'offer ofr_a has 1 unit(s) available', available: 1 };
    await env.withWorker(calls.wrap({ placeOrder: async () => refusal }), async (taskQueue) => {
      const { answer, startWorkflowOperation } = place(taskQueue, order);
      expect(await answer).toEqual(refusal);
      const handle = await startWorkflowOperation.workflowHandle();
      const failed = await handle.result().catch((e: unknown) => e);
      await recordHistory(handle, 'order-fulfilment-refused');
      expect(failed).toBeInstanceOf(WorkflowFailedError);
      const cause = (failed as WorkflowFailedError).cause as ApplicationFailure;
      expect(cause).toBeInstanceOf(ApplicationFailure);
      expect({ type: cause.type, message: cause.message, details: cause.details }).toEqual({
        type: 'insufficient_stock',
        message: refusal.message,
        details: [refusal],
      });
      // Failed, so a corrected retry of the same order_number starts a new run.
      const retry = place(taskQueue, order);
      expect(await retry.answer).toEqual(refusal);
      expect(calls.of('placeOrder')).toHaveLength(2);
    });
  });

  it('retries placing after a passing fault (the transaction is idempotent)', async () => {
    const calls = new ActivityCalls();
    const order = input();
    let faults = 1;
    const doubles = calls.wrap({
      placeOrder: async (o: PlaceOrderInput): Promise<PlacedAnswer> => {
        if (faults-- > 0) throw new Error('connection terminated unexpectedly');
        return { ok: true, orderId: o.orderId, issued: 2 };
      },
    });
    await env.withWorker(doubles, async (taskQueue) => {
      expect(await place(taskQueue, order).answer).toEqual({ ok: true, orderId: order.orderId, issued: 2 });
      expect(calls.of('placeOrder')).toHaveLength(2);
    });
  });

  it('refuses an order whose placing step failed for good (a value Postgres refuses): one attempt, the refusal answered', async () => {
    const calls = new ActivityCalls();
    const order = input();
    const refused = { ok: false as const, code: 'invalid_field' as const, message: 'a value cannot be stored', sqlstate: '22001' };
    const doubles = calls.wrap({
      // Thrown retryable, as another cause might: the step policy alone stops it (nonRetryableErrorTypes).
      placeOrder: async (): Promise<PlacedAnswer> => {
        throw ApplicationFailure.retryable(refused.message, 'Refused', refused);
      },
    });
    await env.withWorker(doubles, async (taskQueue) => {
      const { answer, startWorkflowOperation } = place(taskQueue, order);
      expect(await answer).toEqual(refused);
      const handle = await startWorkflowOperation.workflowHandle();
      const failed = (await handle.result().catch((e: unknown) => e)) as WorkflowFailedError;
      expect(failed).toBeInstanceOf(WorkflowFailedError);
      expect((failed.cause as ApplicationFailure).type).toBe('invalid_field');
      expect(calls.of('placeOrder')).toHaveLength(1);
      await recordHistory(handle, 'order-fulfilment-settled-refused');
    });
  });
});
