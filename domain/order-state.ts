import type { SaleRules } from './sales';
import type { RevenueShares } from './money';
import type { AccountStatus } from './account-lifecycle';

/*
 * What placing a batch of orders decides from (domain/order-plan.ts): the rows the placing
 * transaction locked or read for the batch, as plain values. store/order-placing.ts reads them,
 * all of them before anything is decided, so the decision itself touches no database.
 */

/** An offer as a sale reads it, locked for the batch (sorted by id, so two batches never deadlock). */
export interface OfferForSale {
  id: string;
  status: string;
  type: string;
  start_date: string;
  end_date: string;
  /** Units anyone may buy; null: no limit (a coupon without initial_quantity) and no stock moves. */
  quantity_in_stock: number | null;
  reserved_quantity: number;
  sells_supplied_codes: boolean;
  /** The offer's last event number: the batch's stock events are numbered after it. */
  event_sequence: number;
  document: unknown;
}

/** An active reservation whose window holds `today`, with units still held, locked for the batch. */
export interface UsableReservation {
  id: string;
  offer_id: string;
  account_id: string;
  client_id: string;
  quantity_in_stock: number;
}

/** An advertiser-supplied code not yet issued, locked for the batch (SKIP LOCKED). */
export interface AvailableCode {
  id: string;
  redemption_code: string;
  barcode: string | null;
}

/** An order row already there, for the orders of the batch (a retry, or a duplicate order_number). */
export interface OrderFound {
  id: string;
  request_id: string | null;
}

export interface OrderState {
  /** The UTC day the batch is placed on (dates, windows, vouchers' expiry). */
  today: string;
  offers: ReadonlyMap<string, OfferForSale>;
  /** By accountKey(client, account): only a client's own accounts are found. */
  accounts: ReadonlyMap<string, { status: AccountStatus }>;
  /** Oldest first: an order draws from the oldest usable reservation of its account. */
  reservations: readonly UsableReservation[];
  /** Live vouchers per heldKey(offer, client, customer), for the offers with limit_per_customer. */
  held: ReadonlyMap<string, number>;
  /** Per offer that sells supplied codes: its unissued codes, oldest first, as many as the batch asks. */
  codes: ReadonlyMap<string, readonly AvailableCode[]>;
  /** By order id. */
  existing: ReadonlyMap<string, OrderFound>;
}

export const accountKey = (clientId: string, accountId: string) => `${clientId}\u0000${accountId}`;
export const heldKey = (offerId: string, clientId: string, customer: string) => `${offerId}\u0000${clientId}\u0000${customer}`;

/**
 * What the plan is handed besides the rows: the sale rules (domain/sales.ts), the revenue shares
 * the vouchers keep, and the two makers the domain cannot own (it imports no Node built-in): ids
 * derived from a key (the same key, the same id, on every retry) and random redemption codes.
 */
export interface PlanTools {
  rules: SaleRules;
  shares: RevenueShares;
  derivedId: (prefix: string, key: string) => string;
  newCode: () => string;
}
