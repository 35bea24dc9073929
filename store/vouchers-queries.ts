import type { VoucherRow } from './database';
import type { Db } from './db';
import { pageBounds } from '../schemas/pagination';
import type { z } from 'zod';
import type { Voucher, VoucherListQuery } from '../schemas/voucher';

/**
 * Who sees a voucher: the submission client whose offer it is, or the distribution client that
 * sold it. Anyone else gets 404.
 */
export type VoucherScope = { iface: 'submission' | 'distribution'; clientId: string };

/** Printable voucher page for the customer, on the distribution interface (needs the distributor's key). */
export const printUrl = (voucherId: string) => `/distribution/beta/vouchers/${voucherId}/print`;

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

function scoped(db: Db, scope: VoucherScope) {
  const q = db.selectFrom('vouchers').innerJoin('offers', 'offers.id', 'vouchers.offer_id');
  return scope.iface === 'submission'
    ? q.where('offers.client_id', '=', scope.clientId)
    : q.where('vouchers.client_id', '=', scope.clientId);
}

/** One voucher by id (under an offer) or by id or redemption code (under an advertiser). */
export function findVoucher(
  db: Db,
  scope: VoucherScope,
  ref: { offerId?: string; advertiserId?: string; idOrCode: string; byId?: boolean },
): Promise<(VoucherRow & { title: string }) | undefined> {
  let q = scoped(db, scope).selectAll('vouchers').select('offers.title');
  if (ref.byId) q = q.where('vouchers.id', '=', ref.idOrCode);
  if (ref.offerId) q = q.where('vouchers.offer_id', '=', ref.offerId).where('vouchers.id', '=', ref.idOrCode);
  if (ref.advertiserId) {
    const code = ref.idOrCode.toUpperCase();
    q = q
      .where('offers.advertiser_id', '=', ref.advertiserId)
      .where((eb) => eb.or([eb('vouchers.id', '=', ref.idOrCode), eb('vouchers.redemption_code', '=', code)]));
  }
  return q.executeTakeFirst();
}

export async function listVouchers(db: Db, scope: VoucherScope, q: VoucherListQuery & { offerId?: string }) {
  let query = scoped(db, scope);
  if (q.offerId) query = query.where('vouchers.offer_id', '=', q.offerId);
  if (q.status) query = query.where('vouchers.status', '=', q.status);
  if (q.recently_changed) query = query.where('vouchers.updated_at', '>=', new Date(Date.now() - q.recently_changed * 86_400_000));
  const { limit, offset } = pageBounds(q);
  const [rows, count] = await Promise.all([
    query.selectAll('vouchers').orderBy('vouchers.updated_at', 'desc').orderBy('vouchers.id').limit(limit).offset(offset).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: rows.map(toVoucher), total: count.n };
}

/** Whether this client may see the offer's vouchers at all (owns it, or sold any of it). */
export async function offerVisible(db: Db, scope: VoucherScope, offerId: string): Promise<boolean> {
  if (scope.iface === 'submission') {
    return !!(await db
      .selectFrom('offers')
      .select('id')
      .where('id', '=', offerId)
      .where('client_id', '=', scope.clientId)
      .executeTakeFirst());
  }
  return !!(await db.selectFrom('offers').select('id').where('id', '=', offerId).executeTakeFirst());
}
