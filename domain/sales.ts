import { requireActiveAccount, type AccountStatus } from './account-lifecycle';
import { Failure } from './failures';
import { unsellableReason } from './offer-lifecycle';
import { expiredAtPurchase, type VouchersExpire } from './voucher-expiry';
import { requireWithinCustomerLimit, requireWithinOrderLimit } from './offer-terms';
import { openTo } from './exclusivity';

/*
 * Who may buy or reserve what. An order or a hold is checked inside its own transaction, under
 * the locks of the rows it reads (store/orders.ts, store/reservations.ts), so nothing changes
 * between the check and the write; the data layer applies the rules its caller hands in.
 */

export interface SaleRules {
  /** Refuses (throws a Failure on account_id) unless this account may buy or reserve. */
  requireAccount(accountId: string, account: { status: AccountStatus } | undefined): void;
  /** Whether the offer exists for this distribution client on `today` (not exclusive to others: domain/exclusivity.ts). */
  openTo(document: unknown, clientId: string, today: string): boolean;
  /** Why publishers may not buy or reserve this offer on `today`, or undefined when they may. */
  unsellableReason(offer: { status: string; start_date: string; end_date: string } | undefined, today: string): string | undefined;
  /** Refuses (throws `vouchers_expired` on `field`) when a voucher of this offer bought on `today` would already be expired. */
  requireUnexpiredVouchers(offer: { id: string; vouchers_expire?: VouchersExpire }, today: string, field: string): void;
  /** Refuses (throws `invalid_field` on `field`) an order item above the offer's `restrictions.limit_per_order`. */
  requireWithinOrderLimit(offer: { id: string; document: unknown }, quantity: number, field: string): void;
  /** Refuses (throws `customer_limit_reached` on `field`) when a customer holding `held` units would exceed `restrictions.limit_per_customer`. */
  requireWithinCustomerLimit(offer: { id: string; document: unknown }, held: number, quantity: number, field: string): void;
}

/** A sale (or a hold, the promise of one) would hand the customer a voucher they cannot redeem. */
function requireUnexpiredVouchers(offer: { id: string; vouchers_expire?: VouchersExpire }, today: string, field: string): void {
  const expired = expiredAtPurchase(offer.vouchers_expire, today);
  if (!expired) return;
  throw new Failure(
    'vouchers_expired',
    `offer ${offer.id} is not sold any more: its vouchers expired on ${expired} (vouchers_expire.on), so one bought today could not be redeemed`,
    { field, offer_id: offer.id, vouchers_expire: { on: expired } },
  );
}

/**
 * The rules of spec 3.2: an active account, an approved or resumed offer within its dates, vouchers
 * not already expired; and the advertiser's restrictions (domain/offer-terms.ts).
 */
export const saleRules: SaleRules = {
  requireAccount: requireActiveAccount,
  openTo,
  unsellableReason,
  requireUnexpiredVouchers,
  requireWithinOrderLimit,
  requireWithinCustomerLimit,
};
