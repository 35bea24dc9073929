import { patched, proxyLocalActivities } from '@temporalio/workflow';
import type { Activities } from '../activities';
import { startOfUtcDayMs } from '../domain/dates';
import { SELLABLE, type OfferStatus } from '../domain/offer-lifecycle';
import { vouchersExpiryMs } from '../domain/voucher-expiry';
import { STEP_RETRY } from './shared/step-policy';

/*
 * The offer-review workflow's reading of the calendar. These functions call patched(): their calls
 * must stay where the workflow makes them, or recorded histories stop replaying.
 */

const clock = proxyLocalActivities<Activities>({ startToCloseTimeout: '5 seconds', retry: STEP_RETRY });

/**
 * The wall-clock time timers are measured against (calendar dates). In the workflow sandbox
 * Date.now() is deterministic: it is the current workflow task's start time, recorded in history.
 * Workflows started before this change read the time from the `currentTimeMs` local activity; the
 * patch keeps their histories replaying with the activity (which therefore stays registered).
 */
export async function nowMs(): Promise<number> {
  return patched('workflow-clock') ? Date.now() : await clock.currentTimeMs();
}

/**
 * When an offer moving to `to` must wait for its start_date to be published: that day's start, or
 * null (publish now, or nothing to publish). Workflows started before the 'publish-at-start-date'
 * patch have no startDate and keep publishing on approval, as their histories recorded.
 */
export async function publishDeferredTo(to: OfferStatus, startDate: string | undefined): Promise<number | null> {
  if (startDate === undefined || !SELLABLE.includes(to) || !patched('publish-at-start-date')) return null;
  const startMs = startOfUtcDayMs(startDate);
  return startMs > (await nowMs()) ? startMs : null;
}

/**
 * When the offer's vouchers expire (the start of the UTC day after `on`: from then a voucher bought
 * would already be expired), or Infinity when there is nothing to close: no fixed date, that date's
 * expiry recorded already, or a history recorded before the 'close-at-vouchers-expiry' patch, which
 * keeps replaying without this timer.
 */
export function vouchersExpiryDueMs(on: string | null | undefined, recorded: string | null): number {
  if (!on || on === recorded || !patched('close-at-vouchers-expiry')) return Infinity;
  return vouchersExpiryMs({ on }) ?? Infinity;
}
