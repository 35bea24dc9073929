import { defineUpdate } from '@temporalio/workflow';
import type { OrderSnapshot, Placed, PlaceOrderInput } from '../domain/orders';

export type { OrderSnapshot, Placed, PlaceOrderInput } from '../domain/orders';

/*
 * The order-intake workflow's contract (docs/order-intake.md): one
 * long-running workflow per shard takes orders as `placeOrders` Updates, places what has arrived
 * together through one local activity, and answers each order with its order or its refusal.
 */

export const ORDER_INTAKE_WORKFLOW_TYPE = 'orderIntakeWorkflow';

export interface OrderIntakeInput {
  /** Orders a run takes before it continues as new (sooner when Temporal suggests it). */
  ordersPerRun: number;
}

/** The workflow's signature, for typed starts (the code is in order-intake.ts). */
export type OrderIntakeWorkflow = (input: OrderIntakeInput) => Promise<void>;

/**
 * What placing answers for one order: the placed order (so the API does not read it again),
 * unless it is too large to carry (then the API reads it), or the refusal.
 */
export type PlacedAnswer = Placed | (Extract<Placed, { ok: true }> & { orderSnapshot: OrderSnapshot });

/**
 * One order to place: `requestId` names the HTTP request (stored on the order, so a retry of this
 * request is told from a duplicate order_number); `orderKey` is the order's key (orderKey in
 * domain/orders.ts), from which its id, its stock keys and its voucher ids derive.
 */
export type IntakeOrder = PlaceOrderInput & { requestId: string };

/**
 * Places the orders an API process held for this shard and answers each, in the order sent
 * (services/order-intake.ts coalesces them: one Update per shard in flight). Each order keeps its
 * own request id, by which the database decides exactly-once; one order's refusal is its own
 * answer (a result, never a failed Update) and does not touch the others. Sent with the start
 * (Update-with-Start, USE_EXISTING). At most MAX_ORDERS_PER_UPDATE orders.
 */
export const placeOrdersUpdate = defineUpdate<PlacedAnswer[], [IntakeOrder[]]>('placeOrders');

/**
 * At most this many orders in one `placeOrders` Update: its answer (each order's snapshot, up to
 * 100 vouchers) is one event in the history, kept as small as one batch activity's result.
 */
export const MAX_ORDERS_PER_UPDATE = 20;

/**
 * The failure type with which a run that is closing (its orders taken, draining before it continues
 * as new) refuses a new Update at its validator, before anything is recorded: the sender sends it
 * again, and it reaches the next run (services/order-intake.ts). So a run's history stays bounded
 * under continuous load, where the queue might otherwise never be empty at a loop turn.
 */
export const INTAKE_CLOSING = 'OrderIntakeClosing';

/**
 * The failure types with which the Temporal server itself fails an Update that a run did not see
 * through (its service/history/workflow/update/errors_failures.go): the run ended (continued as
 * new) after accepting it, or a workflow task carried it and completed without accepting or
 * refusing it. The sender sends such an Update again, as for INTAKE_CLOSING.
 */
export const SERVER_UPDATE_NOT_SEEN_THROUGH = ['AcceptedUpdateCompletedWorkflow', 'UnprocessedUpdate'] as const;

/** What the batch activity is given: the orders that arrived together, answered in the same order. */
export interface PlaceOrderBatch {
  orders: IntakeOrder[];
}
