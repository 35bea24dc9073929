import type { Refused } from './failures';
import type { Location } from './location';

/*
 * What the order-fulfilment workflow hands its activities and gets back: shared by the workflow
 * contract (workflows/order-fulfilment-messages.ts) and the data layer (store/orders.ts).
 */

export interface PlaceOrderInput {
  workflowId: string;
  orderId: string;
  clientId: string;
  orderNumber: string;
  accountId: string | null;
  applicationId: string | null;
  customerName: string;
  shippingAddress: Location | null;
  items: { offer_id: string; quantity: number }[];
}

/** Cancelling an order: `key` (workflow id + step) makes its stock events idempotent. */
export interface CancelOrderInput {
  key: string;
  orderId: string;
}

/** `issued` counts the vouchers this call wrote: 0 when a retry found the order already placed. */
export type Placed = { ok: true; orderId: string; issued: number } | Refused;
export type Cancelled = { ok: true; cancelledVouchers: number } | Refused;
