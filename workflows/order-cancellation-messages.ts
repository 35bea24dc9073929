import { defineUpdate } from '@temporalio/workflow';
import type { Cancelled } from '../domain/orders';

export type { CancelOrderInput, Cancelled } from '../domain/orders';

/*
 * The order-cancellation workflow's contract. Cancelling is a short workflow of its own, apart
 * from the order's placing, so an order can be cancelled at any age (docs/orders-and-vouchers.md).
 */

export const ORDER_CANCELLATION_WORKFLOW_TYPE = 'orderCancellationWorkflow';

export interface OrderCancellationInput {
  orderId: string;
}

/** Sent with the start (Update-with-Start): answers once the cancellation has committed. */
export const cancelledUpdate = defineUpdate<Cancelled>('cancelled');
