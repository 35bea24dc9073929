import { startOfUtcDayMs } from '../domain/dates';
import { SELLABLE, type OfferStatus } from '../domain/offer-lifecycle';
import { vouchersExpiryMs } from '../domain/voucher-expiry';

/*
 * The offer-review workflow's reading of the calendar. Date.now() in the workflow sandbox is the
 * current workflow task's start time, recorded in history, so timers against calendar dates need
 * no activity.
 */

/** When an offer moving to `to` must wait for its start_date to be published: that day's start, or null (publish now, or nothing to publish). */
export function publishDeferredTo(to: OfferStatus, startDate: string): number | null {
  if (!SELLABLE.includes(to)) return null;
  const startMs = startOfUtcDayMs(startDate);
  return startMs > Date.now() ? startMs : null;
}

/**
 * When the offer's vouchers expire (the start of the UTC day after `on`: from then a voucher bought
 * would already be expired), or Infinity when there is nothing to close: no fixed date, or that
 * date's expiry recorded already.
 */
export function vouchersExpiryDueMs(on: string | null, recorded: string | null): number {
  if (!on || on === recorded) return Infinity;
  return vouchersExpiryMs({ on }) ?? Infinity;
}
