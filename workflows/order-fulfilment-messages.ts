import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { Cancelled, Placed, PlaceOrderInput } from '../domain/orders';
import { DAY_MS } from '../domain/dates';

export type { CancelOrderInput, Cancelled, Placed, PlaceOrderInput } from '../domain/orders';

/*
 * The order-fulfilment workflow's contract, apart from its code so the API imports only these
 * definitions (and types), never the workflow's activity proxies.
 */

export const ORDER_WORKFLOW_TYPE = 'orderFulfilmentWorkflow';

export interface OrderFulfilmentInput {
  order: Omit<PlaceOrderInput, 'workflowId'>;
  /** How long the order may still be cancelled through its workflow; the workflow then completes. */
  cancellableForMs: number;
}

/** Sent with the start (Update-with-Start): answers once the order is placed or refused. */
export const placedUpdate = defineUpdate<Placed>('placed');
/** `PUT /orders/:id {order:{status:"cancelled"}}`; the validator refuses an order that is not active. */
export const cancelOrderUpdate = defineUpdate<Cancelled>('cancel');
export const orderStatusQuery = defineQuery<string>('status');

/** 400 days: past the longest voucher validity publishers sell (a year), plus refund disputes. */
export const ORDER_CANCELLABLE_MS = 400 * DAY_MS;
