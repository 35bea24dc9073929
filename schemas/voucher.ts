import { z } from 'zod';
import type { VoucherSnapshot } from '../domain/orders';
import { spendableBalance } from '../domain/redemptions';
import type { VoucherRedemptionRow } from '../store/database';
import type { VoucherWithRedemptions } from '../store/redemptions';
import { Currency, iso, isoOrNull, MAX_MONEY_AMOUNT, queryInt, Timestamp } from './common';
import { listEnvelope, okEnvelope, wrappedBody } from './envelope';
import { PageQuery } from './pagination';

/** Voucher statuses (the values this API family has published); expiry is read from expiration_date. */
export const VOUCHER_STATUSES = ['acquired', 'redeemed', 'cancelled'] as const;
export const VoucherStatus = z.enum(VOUCHER_STATUSES);

/** One redemption of a voucher: the amount taken from a gift card (null for a deal or coupon), and when it was rolled back. */
export const Redemption = z.object({
  id: z.string(),
  amount: Currency.nullable(),
  redeemed_at: Timestamp,
  rolled_back_at: Timestamp.nullable(),
  /** The staff member who redeemed it at the counter page (/merchant, docs/merchant-counter.md); null through the API. */
  staff_name: z.string().nullable(),
});

/** A redemption code issued per unit of an order (spec §2.6). */
export const Voucher = z.object({
  id: z.string(),
  offer_id: z.string(),
  order_id: z.string(),
  redemption_code: z.string(),
  customer_name: z.string(),
  status: VoucherStatus,
  acquired_at: Timestamp,
  redeemed_at: Timestamp.nullable(),
  cancelled_at: Timestamp.nullable(),
  expiration_date: z.string().nullable(),
  reservation_id: z.string().nullable(),
  account_id: z.string().nullable(),
  barcode: z.string(),
  /** The customer's voucher page (docs/vouchers.md): open it without a key, print it, scan it. */
  print_url: z.string(),
  /** What is left of a gift card to spend (its offer's `value` when sold; 0 once cancelled); null for deals and coupons. */
  balance: Currency.nullable(),
  /** The latest redemptions (at most 100), oldest first; rolled-back ones carry rolled_back_at. */
  redemptions: z.array(Redemption),
  /** How many redemptions the voucher has in all. */
  redemption_count: z.number().int(),
});
export type Voucher = z.input<typeof Voucher>;

/** An amount to take from a gift card: at least one minor unit. */
const RedeemAmount = Currency.extend({
  amount: z.number().int('must be an integer number of minor units (cents)').min(1, 'must be at least 1').max(MAX_MONEY_AMOUNT),
});

/**
 * Redeem is `{voucher:{status:"redeemed"}}`, with `amount` for part of a gift card's balance
 * (without it, the whole balance); cancel is `{voucher:{status:"cancelled"}}`.
 */
export const VoucherUpdateBody = wrappedBody(
  'voucher',
  z
    .object({ status: z.enum(['redeemed', 'cancelled']), amount: RedeemAmount.optional() })
    .refine((v) => v.status === 'redeemed' || v.amount === undefined, {
      message: 'amount goes with status redeemed only',
      path: ['amount'],
    }),
).meta({
  examples: [{ voucher: { status: 'redeemed' } }, { voucher: { status: 'redeemed', amount: { currency_code: 'USD', amount: 1250 } } }],
});

export const VoucherResponse = okEnvelope('voucher', Voucher);
export const VoucherList = listEnvelope('vouchers', Voucher);

export const VoucherListQuery = PageQuery.extend({
  status: VoucherStatus.optional(),
  /** Vouchers changed (issued, redeemed, cancelled) in the last N days. */
  recently_changed: queryInt(1, 3650).optional(),
});
export type VoucherListQuery = z.infer<typeof VoucherListQuery>;

/** Where the customer's voucher pages live, under the site's root (no API key: the token is the key). */
export const CUSTOMER_VOUCHER_PATH = '/customer/vouchers';

/** The customer's voucher page: absolute, unguessable (the voucher's page token), revocable by rotating the token. */
export const printUrl = (siteBase: string, pageToken: string) => `${siteBase}${CUSTOMER_VOUCHER_PATH}/${pageToken}`;

/**
 * A voucher (a row, or a placed order's snapshot of it) as the API shows it; `siteBase` is the
 * site's absolute address, for print_url.
 */
export function toVoucher(v: VoucherWithRedemptions | VoucherSnapshot, siteBase: string): z.output<typeof Voucher> {
  return {
    id: v.id,
    offer_id: v.offer_id,
    order_id: v.order_id,
    redemption_code: v.redemption_code,
    customer_name: v.customer_name,
    status: v.status,
    acquired_at: iso(v.acquired_at),
    redeemed_at: isoOrNull(v.redeemed_at),
    cancelled_at: isoOrNull(v.cancelled_at),
    expiration_date: v.expiration_date,
    reservation_id: v.reservation_id,
    account_id: v.account_id,
    barcode: v.barcode,
    print_url: printUrl(siteBase, v.page_token),
    balance: balanceOf(v),
    redemptions: (v.redemptions ?? []).map(toRedemption),
    redemption_count: v.redemption_count ?? 0,
  };
}

function balanceOf(v: VoucherWithRedemptions | VoucherSnapshot): z.output<typeof Currency> | null {
  if ('balance' in v) return v.balance ?? null;
  if (!('balance_amount' in v)) return null;
  return spendableBalance(v);
}

type RedemptionLike = Pick<VoucherRedemptionRow, 'id' | 'amount' | 'currency_code'> & {
  redeemed_at: Date | string;
  rolled_back_at: Date | string | null;
  staff_name?: string | null;
};

function toRedemption(r: RedemptionLike): z.output<typeof Redemption> {
  return {
    id: r.id,
    amount: r.amount === null || r.currency_code === null ? null : { currency_code: r.currency_code, amount: r.amount },
    redeemed_at: iso(r.redeemed_at),
    rolled_back_at: isoOrNull(r.rolled_back_at),
    staff_name: r.staff_name ?? null,
  };
}
