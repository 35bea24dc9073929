import { utcDay } from './dates';
import { Failure, invalidField, notFound } from './failures';
import { formatMoney, type Money } from './money';
import { isVoucherExpired } from './voucher-expiry';
import { requireValidDay } from './offer-terms';

/*
 * When a voucher may be redeemed, how much a redemption takes, and when it may be rolled back
 * (docs/vouchers.md#redemptions). The store applies these rules inside the redeeming
 * (or rolling back) transaction, under the voucher's row lock, so nothing changes between the
 * decision and the write: every refusal a redemption or a rollback can get is decided here (`decide`
 * and `requireSameAsk` for a redemption, `decideRollback` for a rollback), and a further rule (a
 * weekday restriction, say) belongs here too; the store writes what they decided.
 */

type VoucherStatus = 'acquired' | 'redeemed' | 'cancelled';

/** A gift card's face value, fixed on the voucher when it is sold: the offer's `value`, else its `price`; null for other types or nothing above zero. */
export function giftCardValue(offer: { type: string; document: unknown }): Money | null {
  if (offer.type !== 'gift_card') return null;
  const doc = (offer.document ?? {}) as { value?: Money; price?: Money };
  const value = doc.value ?? doc.price;
  return value && value.amount > 0 ? { currency_code: value.currency_code, amount: value.amount } : null;
}

/** What is left of a gift card, from the voucher's columns; null for a deal or coupon (no value). */
export function giftCardBalance(v: { value_currency: string | null; balance_amount: number | null }): Money | null {
  return v.value_currency !== null && v.balance_amount !== null ? { currency_code: v.value_currency, amount: v.balance_amount } : null;
}

/**
 * What a gift card still lets its holder spend: its balance while it is live; nothing once it is
 * cancelled (the balance its cancellation voided stays stored, so value − balance still equals
 * what was spent, and the statements refund the unspent part). Null for a deal or coupon.
 */
export function spendableBalance(v: { status: VoucherStatus; value_currency: string | null; balance_amount: number | null }): Money | null {
  const balance = giftCardBalance(v);
  return balance && v.status === 'cancelled' ? { currency_code: balance.currency_code, amount: 0 } : balance;
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

/** The redemption a retry's Idempotency-Key made before, as far as comparing the ask needs it. */
export interface EarlierRedemption {
  id: string;
  amount: number | null;
  currency_code: string | null;
  /** The redeem body it answered (`redeemRequestOf`); null when not recorded (a gift card's, before issue 34). */
  request: string | null;
}

/** What a redeem request asks: its amount (absent: the whole balance or the voucher whole) and its whole body, as `redeemRequestOf` writes it. */
export interface RedeemRequest {
  amount?: Money;
  request?: string;
}

/**
 * The redeem body as a retry must repeat it: its JSON with keys sorted at every level, so the same
 * body sent in another key order or as XML is the same request, and a body that differs in any
 * field (an amount left out, say) is another.
 */
export function redeemRequestOf(body: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v !== null && typeof v === 'object'
        ? Object.fromEntries(
            Object.entries(v)
              .filter(([, x]) => x !== undefined)
              .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
              .map(([k, x]) => [k, sorted(x)]),
          )
        : v;
  return JSON.stringify(sorted(body));
}

/** A rollback as it is decided on, read under the voucher's lock. */
export interface RollbackSubject<R extends RedemptionRecord = RedemptionRecord> {
  /** The redemption of this voucher with the asked id; undefined when it has none. */
  redemption: R | undefined;
  voucherStatus: VoucherStatus;
  /** The status of the voucher's order, read after the voucher's lock. */
  orderStatus: string;
}

/** Why an acquired-looking voucher may not be redeemed on `today`, or undefined when it may. */
function unredeemableReason(v: RedemptionSubject, today: string): string | undefined {
  if (v.status !== 'acquired') return `the voucher is already ${v.status}`;
  if (isVoucherExpired(v.expiration_date, today)) return `the voucher expired on ${v.expiration_date}`;
  const activation = (v.offer.document as { vouchers_activation_date?: string } | null)?.vouchers_activation_date;
  if (activation && activation > today) return `the voucher cannot be redeemed before ${activation}`;
  return undefined;
}

/** What redeeming takes (`amount` absent: the whole balance), or throws a Failure saying why not. */
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
      `the gift card has ${formatMoney(v.balance)} left; ${formatMoney({ currency_code: v.balance.currency_code, amount: take })} asked`,
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

/** Throws a Failure unless this redemption may be rolled back at `now`, within `windowHours` of it. */
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

/**
 * Throws a Failure unless a retry with the Idempotency-Key of `earlier` repeats its whole body
 * (when `earlier` did not record it: asks no other amount); then the retry is answered as the
 * voucher is, taking nothing again.
 */
function requireSameAsk(earlier: EarlierRedemption, ask: RedeemRequest): void {
  const reused = (what: string) =>
    new Failure('idempotency_key_reused', `Idempotency-Key was used for redemption ${earlier.id} with ${what}`, {
      redemption_id: earlier.id,
    });
  if (earlier.request !== null && ask.request !== undefined) {
    if (earlier.request !== ask.request) throw reused('another body (a retry sends the same body again)');
    return;
  }
  const { amount } = ask;
  if (amount && (earlier.amount !== amount.amount || earlier.currency_code !== amount.currency_code)) throw reused('another amount');
}

/** The redemption to roll back, or throws a Failure saying why it may not be (requireRollbackable among the reasons). */
function decideRollback<R extends RedemptionRecord>(s: RollbackSubject<R>, now: Date, windowHours: number): R {
  if (!s.redemption) throw notFound('redemption');
  requireRollbackable(s.redemption, now, windowHours);
  // A voucher with a live redemption is never cancelled (store/vouchers.ts, store/orders.ts); kept as a guard.
  if (s.voucherStatus === 'cancelled') throw new Failure('conflict', 'the voucher is cancelled');
  // Its order's cancellation left it redeemed because it was used; undoing that use would leave a
  // usable voucher on a cancelled order.
  if (s.orderStatus === 'cancelled')
    throw new Failure('conflict', "the voucher's order is cancelled: its redemptions are settled and cannot be rolled back");
  return s.redemption;
}

/** The redemption rules of this service (docs/vouchers.md#redemptions). */
export const redemptionRules = { decide, requireSameAsk, decideRollback, requireRollbackable };
export type RedemptionRules = typeof redemptionRules;
