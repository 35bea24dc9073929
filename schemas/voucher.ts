import { z } from 'zod';
import type { VoucherSnapshot } from '../domain/orders';
import type { VoucherRow } from '../store/database';
import { iso, isoOrNull, queryInt, Timestamp } from './common';
import { listEnvelope, okEnvelope, wrappedBody } from './envelope';
import { PageQuery } from './pagination';

/** Voucher statuses (the values this API family has published); expiry is read from expiration_date. */
export const VOUCHER_STATUSES = ['acquired', 'redeemed', 'cancelled'] as const;
export const VoucherStatus = z.enum(VOUCHER_STATUSES);

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
  /** The customer's voucher page (docs/orders-and-vouchers.md): open it without a key, print it, scan it. */
  print_url: z.string(),
});
export type Voucher = z.input<typeof Voucher>;

/** Redeem is `{voucher:{status:"redeemed"}}`, cancel is `{voucher:{status:"cancelled"}}`. */
export const VoucherUpdateBody = wrappedBody('voucher', z.object({ status: z.enum(['redeemed', 'cancelled']) })).meta({
  examples: [{ voucher: { status: 'redeemed' } }],
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
export function toVoucher(v: VoucherRow | VoucherSnapshot, siteBase: string): z.output<typeof Voucher> {
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
  };
}
