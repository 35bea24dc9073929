import type { ServiceDeps } from './deps';
import type { Page, Paged } from '../domain/paging';
import { notFound, refusalFailure } from '../domain/failures';
import type { VoucherRow } from '../store/database';
import { findOffersByIds } from '../store/offers';
import { cancelVoucher, findVoucher, listVouchers as listVoucherRows, redeemVoucher, type VoucherScope } from '../store/vouchers';
import { toVoucher } from '../schemas/voucher';

/*
 * Vouchers on both interfaces. The submission client sees the vouchers of its own offers (the
 * advertiser redeems them); the distribution client sees those it sold. Anyone else: not found.
 */

export type { VoucherScope };
type Deps = Pick<ServiceDeps, 'db'>;
type VoucherView = ReturnType<typeof toVoucher>;
/** A voucher by id under an offer, or by id or redemption code under an advertiser. */
export type VoucherRef = { offerId: string; voucherId: string } | { advertiserId: string; ref: string };
export type VoucherQuery = Page & { status?: VoucherRow['status']; recently_changed?: number };

async function requireVoucher(deps: Deps, scope: VoucherScope, ref: VoucherRef): Promise<VoucherRow & { title: string }> {
  const found =
    'offerId' in ref
      ? await findVoucher(deps.db, scope, { offerId: ref.offerId, idOrCode: ref.voucherId })
      : await findVoucher(deps.db, scope, { advertiserId: ref.advertiserId, idOrCode: ref.ref });
  return found ?? Promise.reject(notFound('voucher'));
}

/** Whether this client may see the offer's vouchers at all (owns it, or, distributing, it exists). */
async function offerVisible(deps: Deps, scope: VoucherScope, offerId: string): Promise<boolean> {
  const [offer] = await findOffersByIds(deps.db, [offerId]);
  return !!offer && (scope.iface !== 'submission' || offer.client_id === scope.clientId);
}

/** A page of the vouchers this client sees (of one offer, when given), most recently changed first. */
export async function listVouchers(deps: Deps, scope: VoucherScope, q: VoucherQuery, offerId?: string): Promise<Paged<VoucherView>> {
  if (offerId !== undefined && !(await offerVisible(deps, scope, offerId))) throw notFound('offer');
  const { rows, total } = await listVoucherRows(deps.db, scope, { ...q, offerId });
  return { rows: rows.map(toVoucher), total };
}

/** One voucher this client sees (not_found otherwise). */
export async function getVoucher(deps: Deps, scope: VoucherScope, ref: VoucherRef): Promise<VoucherView> {
  return toVoucher(await requireVoucher(deps, scope, ref));
}

/** Redeems or cancels the voucher; a voucher no longer acquired (or not yet valid) is refused. */
export async function changeVoucherStatus(
  deps: Deps,
  scope: VoucherScope,
  ref: VoucherRef,
  status: 'redeemed' | 'cancelled',
): Promise<VoucherView> {
  const { id } = await requireVoucher(deps, scope, ref);
  const result = status === 'redeemed' ? await redeemVoucher(deps.db, id) : await cancelVoucher(deps.db, id);
  if ('ok' in result) throw refusalFailure(result);
  return toVoucher(result);
}

/** The voucher with its offer's title, for the customer's printable page (not_found otherwise). */
export async function printableVoucher(deps: Deps, scope: VoucherScope, voucherId: string): Promise<VoucherRow & { title: string }> {
  return (await findVoucher(deps.db, scope, { idOrCode: voucherId, byId: true })) ?? Promise.reject(notFound('voucher'));
}
