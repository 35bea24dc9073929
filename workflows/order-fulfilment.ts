import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { DAY_MS } from '../domain/dates';
import {
  cancelOrderUpdate,
  orderStatusQuery,
  placedUpdate,
  type Cancelled,
  type OrderFulfilmentInput,
  type Placed,
  type PlacedAnswer,
} from './order-fulfilment-messages';
import { stepRefusal } from './shared/step-failures';
import { STEP_FAILURES_PATCH, STEP_RETRY } from './shared/step-policy';

type OrderState = 'placing' | 'refused' | 'active' | 'cancelling' | 'cancelled';

// Each activity is one short Postgres transaction. A worker that dies mid-transaction leaves
// nothing behind (Postgres rolls it back), and the retry after the timeout does the whole step.
// Bounded (workflows/shared/step-policy.ts): placing that fails for good fails the workflow, which
// frees the order_number; nothing was placed.
const retry = STEP_RETRY;
const { placeOrder: placeOrderRemotely, cancelOrder } = proxyActivities<Activities>({ startToCloseTimeout: '20s', retry });
// Placing runs as a local activity: the same idempotent transaction, executed by the worker that
// holds the workflow task, which saves a task-queue round trip on the path the client waits for.
const { placeOrder: placeOrderLocally } = proxyLocalActivities<Activities>({ startToCloseTimeout: '20s', retry });

// What the service passed as `cancellableForMs` before this change; every such order carries it.
const OLD_CANCELLABLE_MS = 400 * DAY_MS;

/** Fails the update with the refusal as its details and its code as the failure type (the API answers the code). */
function refusalFailure(r: Exclude<Placed | Cancelled, { ok: true }>): ApplicationFailure {
  return ApplicationFailure.create({ message: r.message, type: r.code, nonRetryable: true, details: [r] });
}

/**
 * One order's placing: stock + vouchers in one transaction, then the workflow completes (orders
 * are cancelled by the order-cancellation workflow, at any age). Its id is built from (client,
 * order_number), so an order_number is fulfilled once. A refused order ends as failed, which
 * frees its order_number for a corrected retry.
 *
 * Orders placed before cancellation had its own workflow stay open up to 400 days waiting for
 * the `cancel` update; they replay the same commands (the patch below), and the cancel handler
 * stays registered for them.
 */
export async function orderFulfilmentWorkflow(input: OrderFulfilmentInput): Promise<{ orderId: string; status: OrderState }> {
  const { workflowId } = workflowInfo();
  let state: OrderState = 'placing';
  // Unset until placing answers: the `placed` update handler, registered first, waits for it.
  let placed: PlacedAnswer | undefined = undefined;

  setHandler(orderStatusQuery, () => state);
  setHandler(placedUpdate, async () => {
    await condition(() => placed !== undefined);
    return placed!;
  });
  setHandler(
    cancelOrderUpdate,
    async () => {
      state = 'cancelling';
      const result = await cancelOrder({ key: `${workflowId}:cancel`, orderId: input.order.orderId });
      if (!result.ok) {
        state = 'active';
        throw refusalFailure(result);
      }
      state = 'cancelled';
      return result;
    },
    {
      validator: () => {
        if (state !== 'active')
          throw new Error(state === 'cancelled' ? 'the order is already cancelled' : `the order cannot be cancelled while ${state}`);
      },
    },
  );

  // Workflows started before local placing replay their recorded (remote) activity.
  const placeOrder = patched('place-order-locally') ? placeOrderLocally : placeOrderRemotely;
  placed = await placeOrder({ ...input.order, workflowId }).catch((err: unknown) => {
    // Failed for good (refused by Postgres, or retries spent): refused like any order, nothing placed.
    if (patched(STEP_FAILURES_PATCH)) return stepRefusal(err, 'the order');
    throw err;
  });
  if (!placed.ok) {
    state = 'refused';
    await condition(allHandlersFinished);
    throw refusalFailure(placed);
  }
  state = 'active';
  if (patched('order-ends-when-placed')) {
    // Answer the `placed` update, then end: nothing else happens in this workflow.
    await condition(allHandlersFinished);
    return { orderId: input.order.orderId, status: state };
  }
  // Before the patch: the history stays small: one activity, at most one cancellation, one timer.
  await condition(() => state === 'cancelled', input.cancellableForMs ?? OLD_CANCELLABLE_MS);
  await condition(allHandlersFinished);
  return { orderId: input.order.orderId, status: state };
}
