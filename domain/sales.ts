import { requireActiveAccount } from './account-lifecycle';
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

/**
 * Refuses (`vouchers_expired` on `field`) a sale (or a hold, the promise of one) that would hand the
 * customer a voucher they cannot redeem: one of this offer bought on `today` would already be expired.
 */
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
export const saleRules = {
  requireAccount: requireActiveAccount,
  openTo,
  unsellableReason,
  requireUnexpiredVouchers,
  requireWithinOrderLimit,
  requireWithinCustomerLimit,
};
export type SaleRules = typeof saleRules;
