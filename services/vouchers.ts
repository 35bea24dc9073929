import type { ServiceDeps } from './deps';
import type { Page, Paged } from '../domain/paging';
import { notFound, refusalFailure } from '../domain/failures';
import type { VoucherRow } from '../store/database';
import { findOffersByIds } from '../store/offers';
import {
  cancelVoucher,
  findVoucher,
  findVoucherByPageToken,
  listVouchers as listVoucherRows,
  rotatePageToken,
  type VoucherScope,
} from '../store/vouchers';
import {
  redeemVoucher,
  rollbackRedemption as rollbackRedemptionRow,
  type RedeemAsk,
  type VoucherWithRedemptions,
} from '../store/redemptions';
import { redemptionRules, spendableBalance } from '../domain/redemptions';
import type { Money } from '../domain/money';
import { toVoucher } from '../schemas/voucher';
import type { OfferInput } from '../schemas/offer';
import type { Location } from '../domain/location';
import { informationalRestrictions } from '../domain/offer-terms';
import { openTo } from '../domain/exclusivity';
import { utcDay } from '../domain/dates';

/*
 * Vouchers on both interfaces. The submission client sees the vouchers of its own offers (the
 * advertiser redeems them); the distribution client sees those it sold. Anyone else: not found.
 */

export type { VoucherScope };
type Deps = Pick<ServiceDeps, 'db'>;
type VoucherView = ReturnType<typeof toVoucher>;
/** A voucher by id under an offer, or by id, redemption code or barcode under an advertiser. */
export type VoucherRef = { offerId: string; voucherId: string } | { advertiserId: string; ref: string };
export type VoucherQuery = Page & { status?: VoucherRow['status']; recently_changed?: number };

async function requireVoucher(deps: Deps, scope: VoucherScope, ref: VoucherRef): Promise<VoucherWithRedemptions & { title: string }> {
  const by = 'offerId' in ref ? { offerId: ref.offerId, idOrCode: ref.voucherId } : { advertiserId: ref.advertiserId, idOrCode: ref.ref };
  return (await findVoucher(deps.db, scope, by)) ?? Promise.reject(notFound('voucher'));
}

/**
 * Whether this client may see the offer's vouchers at all: owns it, or, distributing, it exists for
 * it (not exclusive to other distributors: domain/exclusivity.ts).
 */
async function offerVisible(deps: Deps, scope: VoucherScope, offerId: string): Promise<boolean> {
  const [offer] = await findOffersByIds(deps.db, [offerId]);
  if (!offer) return false;
  return scope.iface === 'submission' ? offer.client_id === scope.clientId : openTo(offer.document, scope.clientId, utcDay());
}

/** A page of the vouchers this client sees (of one offer, when given), most recently changed first. */
export async function listVouchers(
  deps: Deps,
  scope: VoucherScope,
  q: VoucherQuery,
  siteBase: string,
  offerId?: string,
): Promise<Paged<VoucherView>> {
  if (offerId !== undefined && !(await offerVisible(deps, scope, offerId))) throw notFound('offer');
  const { rows, total } = await listVoucherRows(deps.db, scope, { ...q, offerId });
  return { rows: rows.map((r) => toVoucher(r, siteBase)), total };
}

/** One voucher this client sees (not_found otherwise). */
export async function getVoucher(deps: Deps, scope: VoucherScope, ref: VoucherRef, siteBase: string): Promise<VoucherView> {
  return toVoucher(await requireVoucher(deps, scope, ref), siteBase);
}

/**
 * Redeems (with `ask.amount`, part of a gift card's balance; `ask.idempotencyKey` makes a retry
 * safe) or cancels the voucher; a voucher no longer acquired (or not yet valid) is refused.
 */
export async function changeVoucherStatus(
  deps: Pick<ServiceDeps, 'db' | 'metrics'>,
  scope: VoucherScope,
  ref: VoucherRef,
  status: 'redeemed' | 'cancelled',
  siteBase: string,
  ask: RedeemAsk = {},
): Promise<VoucherView> {
  const { id } = await requireVoucher(deps, scope, ref);
  const result = status === 'redeemed' ? await redeemVoucher(deps.db, id, ask, redemptionRules) : await cancelVoucher(deps.db, id);
  if ('ok' in result) throw refusalFailure(result);
  // A retry answered from its Idempotency-Key redeemed nothing.
  if (status === 'redeemed' && !('replayed' in result)) deps.metrics.voucherRedeemed();
  return toVoucher(result, siteBase);
}

/**
 * Rolls one redemption of the voucher back within REDEMPTION_ROLLBACK_HOURS (submission interface:
 * the advertiser's till made a mistake): a gift card gets the amount back, a deal or coupon is
 * acquired again. Answers the voucher as a redeem does.
 */
export async function rollbackRedemption(
  deps: Pick<ServiceDeps, 'db' | 'config'>,
  scope: VoucherScope,
  ref: VoucherRef,
  redemptionId: string,
  siteBase: string,
): Promise<VoucherView> {
  const { id } = await requireVoucher(deps, scope, ref);
  const result = await rollbackRedemptionRow(deps.db, id, redemptionId, deps.config.REDEMPTION_ROLLBACK_HOURS, redemptionRules);
  if ('ok' in result) throw refusalFailure(result);
  return toVoucher(result, siteBase);
}

/**
 * Gives the voucher a new customer page address (print_url); the old one stops working at once.
 * For a distributor whose customer's link leaked, or who sends the voucher to someone else.
 */
export async function rotatePrintUrl(deps: Deps, scope: VoucherScope, voucherId: string, siteBase: string): Promise<VoucherView> {
  const { id } = await printableVoucher(deps, scope, voucherId);
  await rotatePageToken(deps.db, id);
  return toVoucher(await printableVoucher(deps, scope, id), siteBase);
}

/** What the customer's voucher page shows. */
export interface CustomerVoucher {
  title: string;
  advertiser_name: string;
  fine_print: string | null;
  customer_name: string;
  redemption_code: string;
  barcode: string;
  status: VoucherRow['status'];
  expiration_date: string | null;
  activation_date: string | null;
  redeemed_at: Date | null;
  cancelled_at: Date | null;
  redemption_locations: Location[];
  /** A gift card's balance and face value; null for deals and coupons. */
  balance: Money | null;
  value: Money | null;
  /** The offer's restrictions in words (valid days, age, appointment…): informational, shown to the customer. */
  restrictions: string[];
}

/** The voucher behind a customer page token (no API key: the unguessable token is the key); not_found otherwise. */
export async function customerVoucher(deps: Deps, token: string): Promise<CustomerVoucher> {
  const v = await findVoucherByPageToken(deps.db, token);
  if (!v) throw notFound('voucher');
  // An offer no longer open to the distributor that sold the voucher shows it as it was sold, not as it is now.
  const sold = (v.offer_as_sold as { document: unknown } | null)?.document;
  return customerView(v, (sold && !openTo(v.document, v.client_id, utcDay()) ? sold : v.document) as OfferInput);
}

/** A voucher as the customer's page shows it, from its row and its offer's document (the merchant's counter shows the same). */
export function customerView(v: VoucherRow, doc: OfferInput): CustomerVoucher {
  return {
    title: doc.title,
    advertiser_name: doc.advertiser.name,
    fine_print: doc.fine_print ?? null,
    customer_name: v.customer_name,
    redemption_code: v.redemption_code,
    barcode: v.barcode,
    status: v.status,
    expiration_date: v.expiration_date,
    activation_date: doc.vouchers_activation_date ?? null,
    redeemed_at: v.redeemed_at,
    cancelled_at: v.cancelled_at,
    redemption_locations: doc.advertiser.redemption_locations,
    balance: spendableBalance(v),
    value: v.value_currency !== null && v.value_amount !== null ? { currency_code: v.value_currency, amount: v.value_amount } : null,
    restrictions: informationalRestrictions(doc),
  };
}

/** The voucher with its offer's title, for the customer's printable page (not_found otherwise). */
export async function printableVoucher(
  deps: Deps,
  scope: VoucherScope,
  voucherId: string,
): Promise<VoucherWithRedemptions & { title: string }> {
  return (await findVoucher(deps.db, scope, { idOrCode: voucherId, byId: true })) ?? Promise.reject(notFound('voucher'));
}
