import { ApplicationFailure, allHandlersFinished, condition, proxyLocalActivities, setHandler, workflowInfo } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { cancelledUpdate, type Cancelled, type OrderCancellationInput } from './order-cancellation-messages';

// One idempotent transaction, run by the worker holding the workflow task (no task-queue round
// trip while the client waits); retried until it commits, as placing is.
const { cancelOrder } = proxyLocalActivities<Activities>({
  startToCloseTimeout: '20s',
  retry: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' },
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
  result = await cancelOrder({ key: workflowInfo().workflowId, orderId: input.orderId });
  await condition(allHandlersFinished);
  return result;
}
