import type { Money } from './money';
import type { Refused } from './failures';
import type { Location } from './location';

/*
 * What the order workflows hand their activities and get back: shared by the workflow contracts
 * (workflows/order-intake-messages.ts, order-cancellation-messages.ts), the data layer
 * (store/order-placing.ts, store/orders.ts), and the API, which maps an OrderSnapshot to its view
 * (schemas/order.ts).
 */

/**
 * One order per (distribution client, order_number): the order's id, its stock events' keys and
 * its vouchers' ids derive from this key, so a retried POST can never place it twice. Stored as
 * `orders.workflow_id`: it was the id of the per-order workflow that placed orders until issue 32,
 * and keeps that form so an order_number placed before still meets its order.
 */
export const orderKey = (clientId: string, orderNumber: string) => `order:${clientId}:${orderNumber}`;

export interface PlaceOrderInput {
  /** orderKey(clientId, orderNumber). */
  orderKey: string;
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
   * The HTTP request placing it (its batch and place in it), stored on the order: finding the
   * order already there, the same request id is this request's own retry, another a duplicate
   * order_number. Orders placed before issue 32 by a per-order workflow have none.
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

/**
 * What cancelling an order does to one of its vouchers (spec 3.2: "all vouchers of the order are
 * cancelled"): an acquired voucher is cancelled and its unit returns (`cancel`); a gift card partly
 * spent is cancelled too, its unspent balance voided, but its unit stays sold, since part of it was
 * used (`void`); a voucher redeemed (used up) or cancelled before stays as it is (`keep`).
 */
export type VoucherCancellation = 'cancel' | 'void' | 'keep';

export function voucherCancellation(v: { status: 'acquired' | 'redeemed' | 'cancelled'; partlySpent: boolean }): VoucherCancellation {
  if (v.status !== 'acquired') return 'keep';
  return v.partlySpent ? 'void' : 'cancel';
}
