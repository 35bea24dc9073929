import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { Cancelled, OrderSnapshot, Placed, PlaceOrderInput } from '../domain/orders';

export type { CancelOrderInput, Cancelled, OrderSnapshot, Placed, PlaceOrderInput } from '../domain/orders';

/*
 * The order-fulfilment workflow's contract, apart from its code so the API imports only these
 * definitions (and types), never the workflow's activity proxies.
 */

export const ORDER_WORKFLOW_TYPE = 'orderFulfilmentWorkflow';

export interface OrderFulfilmentInput {
  order: Omit<PlaceOrderInput, 'workflowId'>;
  /**
   * Only in orders started before cancellation became its own workflow (400 days): how long such
   * a workflow stays open for its `cancel` update. New orders end once placed.
   */
  cancellableForMs?: number;
}

/** The workflow's signature, for typed starts (the code is in order-fulfilment.ts). */
export type OrderFulfilmentWorkflow = (input: OrderFulfilmentInput) => Promise<{ orderId: string; status: string }>;

/**
 * What placing answers: the placed order (so the API does not read it again), unless it is too
 * large to carry (then the API reads it), or the refusal.
 *
 * Until the snapshot was a domain type, the answer carried the API's view of the order as `order`;
 * an order in flight at a deploy may still hold that in its history. Each side reads only its own
 * field and otherwise reads the order from the database, as for a large order: an API of either
 * version answers the same JSON from an answer of either version.
 */
export type PlacedAnswer = Placed | (Extract<Placed, { ok: true }> & { orderSnapshot: OrderSnapshot });

/**
 * Answers once the order is placed or refused: sent with the start (Update-with-Start) by an API
 * without a worker in its process, or after an eager start whose placing notice did not come
 * (services/orders.ts).
 */
export const placedUpdate = defineUpdate<PlacedAnswer>('placed');
/**
 * How orders placed before the order-cancellation workflow were cancelled; their workflows still
 * take it while open. New cancellations go through order-cancellation-messages.
 */
export const cancelOrderUpdate = defineUpdate<Cancelled>('cancel');
export const orderStatusQuery = defineQuery<string>('status');
