import { Failure } from '../../../domain/failures';
import type { CounterVoucher, Staff } from '../../../services/merchant-counter';
import { formatMoney as money } from '../../../domain/money';
import { localDay, localTime } from '../../../domain/time-zones';
import { standing } from '../customer/voucher-page';
import { FAILURE_STATUS } from '../../errors';
import type { Outcome } from './pages';

/*
 * What the counter says happened, in a shop assistant's words: the refusals are the API's own
 * (same rules, same codes and statuses: api/errors.ts), each with a headline that says what to do.
 */

/** A moment on the shop's clock, naming the zone: `2026-11-28 at 18:05 (Europe/Paris)`. */
const at = (d: Date, zone: string) => `${localDay(d, zone)} at ${localTime(d, zone)} (${zone})`;

/** When and by whom the voucher was last redeemed (the live redemption), for "already redeemed". */
function lastRedemption(v: CounterVoucher | undefined, staff: Staff): string | undefined {
  const live = v?.voucher.redemptions.filter((r) => !r.rolled_back_at).at(-1);
  if (!live) return undefined;
  return `Redeemed on ${at(live.redeemed_at, staff.advertiser_time_zone)}, ${live.staff_name ? `by ${live.staff_name} at the counter` : "through the advertiser's own system"}.`;
}

const HEADLINES: Partial<Record<string, string>> = {
  outside_valid_days: 'Not valid today',
  insufficient_balance: 'More than the balance',
  already_rolled_back: 'Already undone',
  rollback_window_closed: 'Too late to undo',
  forbidden: 'Not at this counter',
  invalid_field: 'Check the amount',
  idempotency_key_reused: 'Look the voucher up again',
};

/** A refusal as the counter shows it, with the API's status; `v` is the voucher as it is now, when found. */
export function refusalOutcome(err: Failure, staff: Staff, v?: CounterVoucher): { status: number; outcome: Outcome } {
  const status = FAILURE_STATUS[err.code];
  if (err.code === 'not_found')
    return { status, outcome: { ok: false, title: 'No such voucher', text: `No voucher of ${staff.advertiser_name} has this code.` } };
  if (err.code === 'conflict' && v?.view.status === 'redeemed')
    return { status, outcome: { ok: false, title: 'Already redeemed', text: lastRedemption(v, staff) ?? err.message } };
  if (err.code === 'conflict' && v?.view.status === 'cancelled')
    return { status, outcome: { ok: false, title: 'Cancelled', text: 'This voucher was cancelled: it cannot be used.' } };
  if (err.code === 'conflict' && /expired/.test(err.message))
    return { status, outcome: { ok: false, title: 'Expired', text: err.message } };
  return { status, outcome: { ok: false, title: HEADLINES[err.code] ?? 'Not redeemed', text: err.message } };
}

/** The success of a redemption: what was taken, and what is left of a gift card. */
export function redeemedOutcome(v: CounterVoucher): Outcome {
  const last = v.voucher.redemptions.filter((r) => !r.rolled_back_at).at(-1);
  const taken = last?.amount != null && last.currency_code ? money({ currency_code: last.currency_code, amount: last.amount }) : undefined;
  const left = v.view.balance ? ` Balance left: ${money(v.view.balance)}.` : '';
  return { ok: true, title: 'Redeemed', text: taken ? `${taken} taken.${left}` : `The voucher is used.${left}` };
}

export const undoneOutcome = (v: CounterVoucher): Outcome => ({
  ok: true,
  title: 'Redemption undone',
  text: v.view.balance ? `Balance now ${money(v.view.balance)}.` : 'The voucher can be used again.',
});

export const isFailure = (err: unknown): err is Failure => err instanceof Failure;

/** What a looked-up voucher says before anything is done to it: nothing when usable, else why not (redeemed when and by whom, expired, cancelled). */
export function standingOutcome(v: CounterVoucher, staff: Staff): Outcome | undefined {
  const key = standing(v.view).key;
  if (key === 'redeemed') return { ok: false, title: 'Already redeemed', text: lastRedemption(v, staff) };
  if (key === 'expired') return { ok: false, title: 'Expired', text: `This voucher expired on ${v.view.expiration_date}.` };
  if (key === 'cancelled') return { ok: false, title: 'Cancelled', text: 'This voucher was cancelled: it cannot be used.' };
  return undefined;
}
