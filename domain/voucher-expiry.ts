import { addDays, endOfUtcDayMs } from './dates';

/*
 * When a voucher expires, and what follows for selling it. One rule for redemption (a voucher is
 * expired once its expiration date, inclusive, is over: UTC days), for selling (an offer whose
 * voucher bought now would already be expired is not sold nor listed), for the offer's own
 * validation and for the review workflow's closing at the expiry. store/distribution-visibility.ts
 * states `expiredAtPurchase` in SQL for the search (`vouchersUnexpiredSql`).
 */

/** An offer's `vouchers_expire` (schemas/offer.ts `Expiration`): a fixed last day, or a period after purchase. */
export interface VouchersExpire {
  on?: string;
  days_after_purchase?: number;
}

/** The `vouchers_expire` of an offer's stored document (the validated OfferInput). */
export function vouchersExpireOf(document: unknown): VouchersExpire | undefined {
  return (document as { vouchers_expire?: VouchersExpire } | null)?.vouchers_expire;
}

/** The last day (`YYYY-MM-DD`, inclusive) a voucher bought on `purchasedOn` may be redeemed; null when it never expires. */
export function voucherExpirationDate(expire: VouchersExpire | undefined, purchasedOn: string): string | null {
  if (expire?.on) return expire.on;
  if (expire?.days_after_purchase) return addDays(purchasedOn, expire.days_after_purchase);
  return null;
}

/** Whether a voucher with this expiration date is expired on `today`: its last day is over (UTC). */
export function isVoucherExpired(expirationDate: string | null, today: string): boolean {
  return expirationDate !== null && expirationDate < today;
}

/**
 * The expiration date a voucher bought on `today` would have when it is already expired, else
 * undefined: such an offer must not be sold. Only a fixed `on` can be past; a period after
 * purchase (at least one day) always ends after the purchase.
 */
export function expiredAtPurchase(expire: VouchersExpire | undefined, today: string): string | undefined {
  const date = voucherExpirationDate(expire, today);
  return date !== null && isVoucherExpired(date, today) ? date : undefined;
}

/**
 * The instant from which this offer's vouchers would be expired when bought (the start of the UTC
 * day after `on`), or null when no purchase ever gets an expired voucher. The review workflow
 * closes the offer's sales then.
 */
export function vouchersExpiryMs(expire: VouchersExpire | undefined): number | null {
  return expire?.on ? endOfUtcDayMs(expire.on) : null;
}

/**
 * What is wrong with an offer's `vouchers_expire.on` (reported on that field), or undefined: its
 * vouchers must not be expired when they could first be sold or used: before start_date, before
 * vouchers_activation_date, or (while the offer still has days on sale) before `today`.
 */
export function vouchersExpireProblem(
  o: { start_date: string; end_date: string; vouchers_activation_date?: string; vouchers_expire?: VouchersExpire },
  today: string,
): string | undefined {
  const on = o.vouchers_expire?.on;
  if (!on) return undefined;
  if (on < o.start_date) return `vouchers must not expire (${on}) before the offer starts (start_date ${o.start_date})`;
  if (o.vouchers_activation_date && on < o.vouchers_activation_date)
    return `vouchers must not expire (${on}) before they can be used (vouchers_activation_date ${o.vouchers_activation_date})`;
  if (o.end_date >= today && isVoucherExpired(on, today))
    return `vouchers bought today would already be expired (${on}); vouchers_expire.on must be ${today} or later`;
  return undefined;
}
