import { z } from 'zod';
import type { VoucherRow } from '../store/database';
import { Timestamp } from './common';
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
  print_url: z.string(),
});
export type Voucher = z.input<typeof Voucher>;

/** Redeem is `{voucher:{status:"redeemed"}}`, cancel is `{voucher:{status:"cancelled"}}`. */
export const VoucherUpdateBody = wrappedBody('voucher', z.object({ status: z.enum(['redeemed', 'cancelled']) }));

export const VoucherResponse = okEnvelope('voucher', Voucher);
export const VoucherList = listEnvelope('vouchers', Voucher);

export const VoucherListQuery = PageQuery.extend({
  status: VoucherStatus.optional(),
  /** Vouchers changed (issued, redeemed, cancelled) in the last N days. */
  recently_changed: z.coerce.number().int().min(1).max(3650).optional(),
});
export type VoucherListQuery = z.infer<typeof VoucherListQuery>;

/** Printable voucher page for the customer, on the distribution interface (needs the distributor's key). */
export const printUrl = (voucherId: string) => `/distribution/beta/vouchers/${voucherId}/print`;

/** A voucher row as the API shows it. */
export function toVoucher(v: VoucherRow): z.output<typeof Voucher> {
  return {
    id: v.id,
    offer_id: v.offer_id,
    order_id: v.order_id,
    redemption_code: v.redemption_code,
    customer_name: v.customer_name,
    status: v.status,
    acquired_at: v.acquired_at.toISOString(),
    redeemed_at: v.redeemed_at?.toISOString() ?? null,
    cancelled_at: v.cancelled_at?.toISOString() ?? null,
    expiration_date: v.expiration_date,
    reservation_id: v.reservation_id,
    account_id: v.account_id,
    barcode: v.barcode,
    print_url: printUrl(v.id),
  };
}
