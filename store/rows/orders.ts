import type { ColumnType, Generated, Selectable } from 'kysely';
import type { Timestamp } from './columns';
import type { NewOrderRow, NewVoucherRow } from '../../domain/order-plan';

/* Publishers' side: accounts, reservations, orders, their items and the vouchers they issue. */

export interface AccountTable {
  id: string;
  client_id: string;
  name: string;
  website_url: string | null;
  status: 'pending' | 'active' | 'cancelled';
  created_at: Timestamp;
  updated_at: Timestamp;
  activated_at: Timestamp | null;
  cancelled_at: Timestamp | null;
}

export interface ReservationTable {
  id: string;
  client_id: string;
  offer_id: string;
  account_id: string;
  quantity_reserved: number;
  /** Units still held for the account; 0 once released. */
  quantity_in_stock: number;
  start_date: string;
  end_date: string;
  status: 'active' | 'cancelled' | 'expired';
  created_at: Timestamp;
  updated_at: Timestamp;
  ended_at: Timestamp | null;
  /** Why it ended (RESERVATION_END_REASONS in domain/reservations.ts); null while active, or ended before the column existed. */
  end_reason: ColumnType<string | null, string | null | undefined, string | null>;
}

/** An order as placed (domain/order-plan.ts `NewOrderRow`), with what the database keeps beside it. */
export interface OrderTable extends Omit<NewOrderRow, 'customer_reference' | 'shipping_address' | 'request_id'> {
  /** The publisher's own id for its customer (limit_per_customer counts by it); null when not given. */
  customer_reference: ColumnType<string | null, string | null | undefined, string | null>;
  shipping_address: ColumnType<unknown, string | null, string | null>;
  status: 'active' | 'cancelled';
  purchased_at: Timestamp;
  cancelled_at: Timestamp | null;
  /** The HTTP request that placed it through the intake (its batch and place in it); null when a per-order workflow placed it before issue 32. */
  request_id: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface OrderItemTable {
  order_id: string;
  position: number;
  offer_id: string;
  quantity: number;
  /**
   * The offer row's distribution-view columns as they were when the order was placed (migration
   * 0040); null only for items written outside the placing transaction.
   */
  offer_as_sold: ColumnType<unknown, string | undefined, never>;
}

/**
 * A voucher as an order issues it (domain/order-vouchers.ts `NewVoucherRow`), with its state; the
 * columns redeclared here are optional or null in rows older than them, or filled by Postgres.
 */
export interface VoucherTable extends Omit<NewVoucherRow, 'customer_key' | 'supplied' | `sale_${string}`> {
  /** Who it was sold to, as limit_per_customer counts (domain/customer-identity.ts `customerKey`); null before that existed. */
  customer_key: ColumnType<string | null, string | null | undefined, string | null>;
  status: 'acquired' | 'redeemed' | 'cancelled';
  acquired_at: Timestamp;
  redeemed_at: Timestamp | null;
  cancelled_at: Timestamp | null;
  updated_at: Timestamp;
  /** Whether the code was supplied by the advertiser (a row of supplied_vouchers with this id). */
  supplied: Generated<boolean>;
  /** Secret part of the customer's voucher page address; replaced to revoke it. */
  page_token: Generated<string>;
  /**
   * The sale's per-unit figures, fixed when sold (docs/statements.md): the offer's price and
   * advertiser_rebate, and the revenues the distribution view showed (null on vouchers sold before
   * they were stored: the statement computes them from the stored price).
   */
  sale_price_amount: ColumnType<number | null, number | null | undefined, number | null>;
  sale_price_currency: ColumnType<string | null, string | null | undefined, string | null>;
  sale_rebate_amount: ColumnType<number | null, number | null | undefined, number | null>;
  sale_rebate_currency: ColumnType<string | null, string | null | undefined, string | null>;
  sale_distributor_revenue: ColumnType<number | null, number | null | undefined, number | null>;
  sale_account_revenue: ColumnType<number | null, number | null | undefined, number | null>;
}

/** One redemption of a voucher (amount null for a deal or coupon); rolled back by setting rolled_back_at. */
export interface VoucherRedemptionTable {
  id: string;
  voucher_id: string;
  amount: number | null;
  currency_code: string | null;
  redeemed_at: Timestamp;
  rolled_back_at: Timestamp | null;
  /** The client's Idempotency-Key of the redeem request that made it: a retry finds this row. */
  idempotency_key: string | null;
  /** The redeem body it answered, canonical (domain/redemptions.ts `redeemRequestOf`); a retry must repeat it. Null without a key, and for a gift card's redemption made before it was recorded. */
  request: ColumnType<string | null, string | null | undefined, string | null>;
  /** The redemption staff member who redeemed it at the counter (/merchant); null through the API. */
  staff_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** That staff member's name as it was then. */
  staff_name: ColumnType<string | null, string | null | undefined, string | null>;
}

export type AccountRow = Selectable<AccountTable>;
export type ReservationRow = Selectable<ReservationTable>;
export type OrderRow = Selectable<OrderTable>;
export type OrderItemRow = Selectable<OrderItemTable>;
export type VoucherRow = Selectable<VoucherTable>;
export type VoucherRedemptionRow = Selectable<VoucherRedemptionTable>;
