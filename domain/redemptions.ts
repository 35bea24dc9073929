import { utcDay } from './dates';
import { Failure, invalidField } from './failures';
import type { Money } from './money';
import { isVoucherExpired } from './voucher-expiry';
import { requireValidDay } from './offer-terms';

/*
 * When a voucher may be redeemed, how much a redemption takes, and when it may be rolled back
 * (docs/orders-and-vouchers.md#redemptions). The store applies these rules inside the redeeming
 * (or rolling back) transaction, under the voucher's row lock, so nothing changes between the
 * decision and the write: `decide` is the one place a redemption is decided, and a further rule
 * (a weekday restriction, say) belongs there.
 */

type VoucherStatus = 'acquired' | 'redeemed' | 'cancelled';

/** A gift card's face value, fixed on the voucher when it is sold: the offer's `value`, else its `price`; null for other types or nothing above zero. */
export function giftCardValue(offer: { type: string; document: unknown }): Money | null {
  if (offer.type !== 'gift_card') return null;
  const doc = (offer.document ?? {}) as { value?: Money; price?: Money };
  const value = doc.value ?? doc.price;
  return value && value.amount > 0 ? { currency_code: value.currency_code, amount: value.amount } : null;
}

/** A voucher as a redemption is decided on: locked, with its offer's stored document. */
export interface RedemptionSubject {
  status: VoucherStatus;
  expiration_date: string | null;
  /** What is left of a gift card; null for a deal or coupon (redeemed whole, once). */
  balance: Money | null;
  offer: { id: string; type: string; document: unknown };
}

/** What a redemption takes, and the voucher after it. */
export interface RedemptionDecision {
  /** The amount taken from a gift card; null for a deal or coupon. */
  amount: Money | null;
  /** The gift card's balance after it; null for a deal or coupon. */
  balanceAfter: number | null;
  status: Extract<VoucherStatus, 'acquired' | 'redeemed'>;
}

/** A redemption as its rollback is decided on. */
export interface RedemptionRecord {
  id: string;
  redeemed_at: Date;
  rolled_back_at: Date | null;
}

export interface RedemptionRules {
  /** What redeeming takes (`amount` absent: the whole balance), or throws a Failure saying why not. */
  decide(voucher: RedemptionSubject, amount: Money | undefined, now: Date): RedemptionDecision;
  /** Throws a Failure unless this redemption may be rolled back at `now`, within `windowHours` of it. */
  requireRollbackable(redemption: RedemptionRecord, now: Date, windowHours: number): void;
}

/** Why an acquired-looking voucher may not be redeemed on `today`, or undefined when it may. */
function unredeemableReason(v: RedemptionSubject, today: string): string | undefined {
  if (v.status !== 'acquired') return `the voucher is already ${v.status}`;
  if (isVoucherExpired(v.expiration_date, today)) return `the voucher expired on ${v.expiration_date}`;
  const activation = (v.offer.document as { vouchers_activation_date?: string } | null)?.vouchers_activation_date;
  if (activation && activation > today) return `the voucher cannot be redeemed before ${activation}`;
  return undefined;
}

function decide(v: RedemptionSubject, amount: Money | undefined, now: Date): RedemptionDecision {
  // What the request asks is checked first (422): it is wrong whatever state the voucher is in.
  if (amount && !v.balance)
    throw invalidField('amount', `amount applies to gift cards only; a ${v.offer.type} is redeemed whole: send no amount`);
  if (amount && v.balance && amount.currency_code !== v.balance.currency_code)
    throw invalidField('amount.currency_code', `the gift card's balance is in ${v.balance.currency_code}, not ${amount.currency_code}`, {
      balance: v.balance,
    });
  const why = unredeemableReason(v, utcDay(now));
  if (why) throw new Failure('conflict', why);
  requireValidDay(v.offer, now); // restrictions.valid_days: 409 outside_valid_days
  if (!v.balance) return { amount: null, balanceAfter: null, status: 'redeemed' };
  const take = amount?.amount ?? v.balance.amount;
  if (take > v.balance.amount)
    throw new Failure(
      'insufficient_balance',
      `the gift card has ${v.balance.amount} left (minor units of ${v.balance.currency_code}); ${take} asked`,
      {
        field: 'amount.amount',
        balance: v.balance,
      },
    );
  const balanceAfter = v.balance.amount - take;
  return {
    amount: { currency_code: v.balance.currency_code, amount: take },
    balanceAfter,
    status: balanceAfter === 0 ? 'redeemed' : 'acquired',
  };
}

function requireRollbackable(r: RedemptionRecord, now: Date, windowHours: number): void {
  if (r.rolled_back_at)
    throw new Failure('already_rolled_back', `redemption ${r.id} was rolled back at ${r.rolled_back_at.toISOString()}`, {
      redemption_id: r.id,
      rolled_back_at: r.rolled_back_at.toISOString(),
    });
  const closes = new Date(r.redeemed_at.getTime() + windowHours * 3_600_000);
  if (now > closes)
    throw new Failure(
      'rollback_window_closed',
      `redemption ${r.id} can no longer be rolled back: it is more than ${windowHours} hours old (REDEMPTION_ROLLBACK_HOURS)`,
      { redemption_id: r.id, rollback_closed_at: closes.toISOString() },
    );
}

/** The redemption rules of this service (docs/orders-and-vouchers.md#redemptions). */
export const redemptionRules: RedemptionRules = { decide, requireRollbackable };
