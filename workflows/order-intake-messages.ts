import { defineUpdate } from '@temporalio/workflow';
import type { PlaceOrderInput } from '../domain/orders';
import type { PlacedAnswer } from './order-fulfilment-messages';

export type { PlaceOrderInput } from '../domain/orders';
export type { PlacedAnswer } from './order-fulfilment-messages';

/*
 * The order-intake workflow's contract (ORDER_INTAKE=sharded; docs/orders-and-vouchers.md): one
 * long-running workflow per shard takes orders as Updates, places what has arrived together
 * through one local activity, and answers each Update with its order or its refusal.
 */

export const ORDER_INTAKE_WORKFLOW_TYPE = 'orderIntakeWorkflow';

export interface OrderIntakeInput {
  /** Orders a run takes before it continues as new (sooner when Temporal suggests it). */
  ordersPerRun: number;
}

/** The workflow's signature, for typed starts (the code is in order-intake.ts). */
export type OrderIntakeWorkflow = (input: OrderIntakeInput) => Promise<void>;

/**
 * One order to place: `requestId` names the HTTP request (stored on the order, so a retry of this
 * request is told from a duplicate order_number); `workflowId` is the order's key, its per-order
 * workflow id (orderWorkflowId), from which its stock keys and voucher ids derive as on that path.
 */
export type IntakeOrder = PlaceOrderInput & { requestId: string };

/**
 * Places one order and answers it: the order (vouchers included) or its refusal, a result and
 * never a failed Update or workflow (a refusal is not an operator's concern). Sent with the start
 * (Update-with-Start, USE_EXISTING) by services/orders.ts.
 */
export const placeOrderUpdate = defineUpdate<PlacedAnswer, [IntakeOrder]>('placeOrder');

/**
 * Places several orders and answers each, in the order sent (ORDER_INTAKE_COALESCE, the API's
 * coalescing of the orders it holds for one shard into one Update: services/order-intake.ts). Each
 * order keeps its own request id, by which the database decides exactly-once; one order's refusal
 * is its own answer and does not touch the others. At most MAX_ORDERS_PER_UPDATE orders.
 */
export const placeOrdersUpdate = defineUpdate<PlacedAnswer[], [IntakeOrder[]]>('placeOrders');

/**
 * At most this many orders in one `placeOrders` Update: its answer (each order's snapshot, up to
 * 100 vouchers) is one event in the history, kept as small as one batch activity's result.
 */
export const MAX_ORDERS_PER_UPDATE = 20;

/**
 * The failure type with which a run that is closing (its orders taken, draining before it continues
 * as new) refuses a new order at its validator, before anything is recorded: the sender sends it
 * again, and it reaches the next run (services/order-intake.ts). So a run's history stays bounded
 * under continuous load, where the queue might otherwise never be empty at a loop turn.
 */
export const INTAKE_CLOSING = 'OrderIntakeClosing';

/** What the batch activity is given: the orders that arrived together, answered in the same order. */
export interface PlaceOrderBatch {
  orders: IntakeOrder[];
}
