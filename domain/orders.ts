import type { Money } from './money';
import type { Refused } from './failures';
import type { Location } from './location';

/*
 * What the order-fulfilment workflow hands its activities and gets back: shared by the workflow
 * contract (workflows/order-fulfilment-messages.ts), the data layer (store/orders.ts), and the
 * API, which maps an OrderSnapshot to its view (schemas/order.ts).
 */

export interface PlaceOrderInput {
  workflowId: string;
  orderId: string;
  clientId: string;
  orderNumber: string;
  accountId: string | null;
  applicationId: string | null;
  customerName: string;
  /** The publisher's own id for its customer (limit_per_customer); absent in orders placed before it existed. */
  customerReference?: string | null;
  shippingAddress: Location | null;
  items: { offer_id: string; quantity: number }[];
  /**
   * The HTTP request placing it through a sharded intake workflow (ORDER_INTAKE=sharded), stored
   * on the order: finding the order already there, the same request id is this request's own
   * retry, another a duplicate order_number. Absent on the per-order workflow's path.
   */
  requestId?: string;
}

/** Cancelling an order: `key` (workflow id + step) makes its stock events idempotent. */
export interface CancelOrderInput {
  key: string;
  orderId: string;
}

/** `issued` counts the vouchers this call wrote: 0 when a retry found the order already placed. */
export type Placed = { ok: true; orderId: string; issued: number } | Refused;
export type Cancelled = { ok: true; cancelledVouchers: number } | Refused;

/**
 * A voucher as placing issued it, in the order's snapshot. Plain JSON (it travels in workflow
 * history): times are ISO 8601 strings. `page_token` is the secret of the customer's voucher page;
 * its address is the site's, which only the API knows.
 */
export interface VoucherSnapshot {
  id: string;
  offer_id: string;
  order_id: string;
  account_id: string | null;
  reservation_id: string | null;
  redemption_code: string;
  barcode: string;
  customer_name: string;
  status: 'acquired' | 'redeemed' | 'cancelled';
  expiration_date: string | null;
  acquired_at: string;
  redeemed_at: string | null;
  cancelled_at: string | null;
  page_token: string;
  /**
   * A gift card's balance and the voucher's redemptions (`{id, amount, currency_code, redeemed_at,
   * rolled_back_at}`). Absent from snapshots made before gift-card balances: the API then reads the order.
   */
  balance?: Money | null;
  redemptions?: RedemptionSnapshot[];
  redemption_count?: number;
}

/** A voucher's redemption in a snapshot (plain JSON). */
export interface RedemptionSnapshot {
  id: string;
  amount: number | null;
  currency_code: string | null;
  redeemed_at: string;
  rolled_back_at: string | null;
}

/** A placed order with its items and vouchers as placing wrote them (plain JSON, as VoucherSnapshot). */
export interface OrderSnapshot {
  id: string;
  order_number: string;
  status: 'active' | 'cancelled';
  account_id: string | null;
  application_id: string | null;
  customer_name: string;
  /** Absent in snapshots from before customer references. */
  customer_reference?: string | null;
  shipping_address: Location | null;
  purchased_at: string;
  cancelled_at: string | null;
  items: { offer_id: string; quantity: number }[];
  vouchers: VoucherSnapshot[];
  voucher_count: number;
}
