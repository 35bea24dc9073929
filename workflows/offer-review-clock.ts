import { endOfUtcDayMs, startOfUtcDayMs } from '../domain/dates';
import type { OfferDocument } from '../domain/offer';
import { SELLABLE, type OfferStatus } from '../domain/offer-lifecycle';
import { vouchersExpiryMs } from '../domain/voucher-expiry';
import type { OfferReviewInput } from './offer-review-messages';

/*
 * The offer-review workflow's reading of the calendar: the offer's dates and the timers they set.
 * Date.now() in the workflow sandbox is the current workflow task's start time, recorded in
 * history, so timers against calendar dates need no activity.
 */

/** After a timer's step failed for good, the timers wait this long before trying again. */
const TIMER_RETRY_MS = 60 * 60 * 1000;

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

/** The timer that came due, in the order they win: close at end_date, stop selling at the vouchers' expiry, publish at start_date, remind the review team. */
export type DueTimer = 'close' | 'vouchers_expired' | 'publish' | 'remind' | undefined;

/** What the clock carries across continue-as-new. */
type ClockState = Required<
  Pick<OfferReviewInput, 'endDate' | 'startDate' | 'reminderDueAtMs' | 'publishDueAtMs' | 'vouchersExpireOn' | 'vouchersExpiryRecorded'>
>;

/** One offer's dates and timers (the fields are those of `OfferReviewInput`). */
export class OfferClock implements ClockState {
  endDate: string;
  startDate: string;
  reminderDueAtMs: number | null;
  publishDueAtMs: number | null;
  vouchersExpireOn: string | null;
  vouchersExpiryRecorded: string | null;
  /** Set when a timer's step failed for good: no timer fires before it. */
  private pausedUntilMs = 0;

  constructor(input: OfferReviewInput) {
    this.endDate = input.endDate;
    this.startDate = input.startDate;
    this.reminderDueAtMs = input.reminderDueAtMs ?? null;
    this.publishDueAtMs = input.publishDueAtMs ?? null;
    this.vouchersExpireOn = input.vouchersExpireOn ?? null;
    this.vouchersExpiryRecorded = input.vouchersExpiryRecorded ?? null;
  }

  /** How long until the next timer is due: at least 1 ms, and not before a pause ends. */
  msUntilDue(): number {
    const now = Date.now();
    const due = Math.min(
      endOfUtcDayMs(this.endDate),
      this.reminderDueAtMs ?? Infinity,
      this.publishDueAtMs ?? Infinity,
      vouchersExpiryDueMs(this.vouchersExpireOn, this.vouchersExpiryRecorded),
    );
    return Math.max(due - now, this.pausedUntilMs - now, 1);
  }

  /** Which timer is due, woken by the timer (the reminder only while the review is pending). */
  due(status: OfferStatus): DueTimer {
    const now = Date.now();
    if (now >= endOfUtcDayMs(this.endDate)) return 'close';
    if (now >= vouchersExpiryDueMs(this.vouchersExpireOn, this.vouchersExpiryRecorded)) return 'vouchers_expired';
    if (this.publishDueAtMs !== null && now >= this.publishDueAtMs) return 'publish';
    if (this.reminderDueAtMs !== null && status === 'pending') return 'remind';
    return undefined;
  }

  /** A timer's step failed for good: no timer fires for TIMER_RETRY_MS. */
  pause(): void {
    this.pausedUntilMs = Date.now() + TIMER_RETRY_MS;
  }

  /** An edit's dates move the timers (and a new vouchers_expire.on is closed at again). */
  edited(input: OfferDocument): void {
    this.endDate = input.end_date;
    this.startDate = input.start_date;
    this.vouchersExpireOn = input.vouchers_expire?.on ?? null;
  }

  carried(): ClockState {
    const { endDate, startDate, reminderDueAtMs, publishDueAtMs, vouchersExpireOn, vouchersExpiryRecorded } = this;
    return { endDate, startDate, reminderDueAtMs, publishDueAtMs, vouchersExpireOn, vouchersExpiryRecorded };
  }
}
