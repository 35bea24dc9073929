import {
  allHandlersFinished,
  ApplicationFailure,
  condition,
  proxyLocalActivities,
  setHandler,
  setWorkflowOptions,
  workflowInfo,
} from '@temporalio/workflow';
import type { Activities } from '../activities';
import { cancelledUpdate, type Cancelled, type OrderCancellationInput } from './order-cancellation-messages';
import { stepRefusal } from './shared/step-failures';
import { STEP_RETRY } from './shared/step-policy';
import { PINNED_RUN } from './shared/versioning';

// One idempotent transaction, run by the worker holding the workflow task (no task-queue round
// trip while the client waits); retried as placing is, boundedly: a cancellation that fails for
// good fails this run, and the client's next request starts a new one.
const { cancelOrder } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '20s',
  retry: STEP_RETRY,
});

/**
 * Cancels one order: its acquired vouchers are cancelled and their units returned, redeemed ones
 * stay redeemed, the order becomes cancelled, all in one transaction. The id comes from the order,
 * so concurrent requests share one run; a request after it ended starts a run that finds the
 * order cancelled and changes nothing.
 */
export async function orderCancellationWorkflow(input: OrderCancellationInput): Promise<Cancelled> {
  let result: Cancelled | undefined = undefined;
  setHandler(cancelledUpdate, async () => {
    await condition(() => result !== undefined);
    if (!result!.ok) {
      throw ApplicationFailure.create({ message: result!.message, type: result!.code, nonRetryable: true, details: [result] });
    }
    return result!;
  });
  // Failed for good: the Update answers why, and the client's next request starts a new run.
  result = await cancelOrder({ key: workflowInfo().workflowId, orderId: input.orderId }).catch((err: unknown) =>
    stepRefusal(err, 'the cancellation'),
  );
  await condition(allHandlersFinished);
  return result;
}
setWorkflowOptions(PINNED_RUN, orderCancellationWorkflow);
