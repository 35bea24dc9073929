import { addDays, utcDay } from './dates';
import { SELLABLE, type OfferStatus } from './offer-lifecycle';
import { expiredAtPurchase, vouchersExpireOf, vouchersExpiryMs } from './voucher-expiry';

/*
 * An offer's `closed_at`, the one rule both interfaces show (issue 34: a cancelled offer showed
 * null to its advertiser and a time to publishers). `closedAtSql` (store/distribution-visibility.ts)
 * is the same rule in SQL, for recently_closed.
 */

/** The offer's columns the rule reads. */
export interface ClosingFacts {
  closed_at: Date | null;
  status: string;
  published_at: Date | null;
  updated_at: Date;
  end_date: string;
  quantity_in_stock: number | null;
  availability_changed_at: Date | null;
  document: unknown;
}

/**
 * When the offer left the catalogue, or null while it is on sale (or was never published): closed_at
 * once closed; else the last change for an offer taken off sale by its status (cancelled,
 * suspended, withdrawn…); else the start of the day after its end_date; else, its vouchers expired
 * (vouchers_expire.on is over), when that was recorded and never before the day after `on`; else,
 * sold out, when its stock reached zero.
 */
export function offerClosedAt(row: ClosingFacts, today = utcDay()): Date | null {
  if (row.closed_at) return new Date(row.closed_at);
  if (!SELLABLE.includes(row.status as OfferStatus)) return row.published_at ? new Date(row.updated_at) : null;
  if (row.end_date < today) return new Date(`${addDays(row.end_date, 1)}T00:00:00Z`);
  const expiredOn = expiredAtPurchase(vouchersExpireOf(row.document), today);
  if (expiredOn) {
    // Like sold out: when the review workflow recorded it, never before the expiry itself.
    const expiredAt = vouchersExpiryMs({ on: expiredOn })!;
    const recorded = row.availability_changed_at ? new Date(row.availability_changed_at).getTime() : 0;
    return new Date(Math.max(expiredAt, recorded));
  }
  if (row.quantity_in_stock === 0) return new Date(row.availability_changed_at ?? row.updated_at);
  return null;
}
