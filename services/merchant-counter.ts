import crypto from 'node:crypto';
import type { ServiceDeps } from './deps';
import { Failure, notFound } from '../domain/failures';
import type { Money } from '../domain/money';
import { redeemRequestOf } from '../domain/redemptions';
import { findOffersByIds } from '../store/offers';
import { findVoucher } from '../store/vouchers';
import { staffRedemptionsSince, type CounterRedemption, type VoucherWithRedemptions } from '../store/redemptions';
import { deleteSession, sessionStaff, signInWithCode, type StaffWithAdvertiser } from '../store/redemption-staff';
import type { OfferInput } from '../schemas/offer';
import { changeVoucherStatus, customerView, rollbackRedemption, type CustomerVoucher, type VoucherScope } from './vouchers';
import { postalKey, secretHash } from './redemption-staff';
import { normalizeSignInCode } from '../domain/redemption-codes';
import { startOfLocalDay } from '../domain/time-zones';

/*
 * The merchant's counter (/merchant, docs/merchant-counter.md): what a signed-in staff member may
 * do, and nothing else. Every voucher is found under the staff member's own client and advertiser
 * (a voucher of another advertiser is not found, exactly as on the submission interface), and
 * redeeming and undoing are the submission interface's own services (services/vouchers.ts), so
 * the rules, refusals and events are the API's, with the staff member recorded.
 */

type Deps = Pick<ServiceDeps, 'db' | 'config' | 'metrics'>;
export type Staff = StaffWithAdvertiser;
export type { CounterRedemption };

/** A counter voucher: what the page shows and what it needs to act on it. */
export interface CounterVoucher {
  id: string;
  view: CustomerVoucher;
  voucher: VoucherWithRedemptions;
  /** Why this counter may not redeem it (the staff member's locations), or null. */
  notHere: string | null;
  rollbackHours: number;
}

const scopeOf = (s: Staff): VoucherScope => ({ iface: 'submission', clientId: s.client_id });

/** Signs in with a one-time code: a new session token (the cookie) and its expiry, or undefined. */
export async function signIn(deps: Deps, typedCode: string): Promise<{ token: string; expiresAt: Date } | undefined> {
  const token = crypto.randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + deps.config.MERCHANT_SESSION_HOURS * 3_600_000);
  const staffId = await signInWithCode(deps.db, secretHash(normalizeSignInCode(typedCode)), { tokenHash: secretHash(token), expiresAt });
  return staffId ? { token, expiresAt } : undefined;
}

/** The staff member of a live session token, or undefined (expired, revoked, unknown). */
export function staffOfSession(deps: Pick<ServiceDeps, 'db'>, token: string): Promise<Staff | undefined> {
  return sessionStaff(deps.db, secretHash(token));
}

export function signOut(deps: Pick<ServiceDeps, 'db'>, token: string): Promise<void> {
  return deleteSession(deps.db, secretHash(token));
}

/** Why a staff member limited to some postal codes may not redeem at this offer's locations, or null. */
function locationRefusal(staff: Staff, doc: OfferInput): string | null {
  if (!staff.postal_codes) return null;
  const offered = doc.advertiser.redemption_locations.map((l) => postalKey(l.postal_code ?? ''));
  // An offer without locations is redeemed anywhere the advertiser is.
  if (offered.length === 0 || offered.some((p) => staff.postal_codes!.includes(p))) return null;
  return `this offer is redeemed at other locations than this counter's (${staff.postal_codes.join(', ')})`;
}

/** The voucher with this code, id or barcode among the advertiser's vouchers; not_found otherwise. */
export async function lookUp(deps: Deps, staff: Staff, code: string): Promise<CounterVoucher> {
  const found = await findVoucher(deps.db, scopeOf(staff), { advertiserId: staff.advertiser_id, idOrCode: code.trim() });
  if (!found) throw notFound('voucher');
  const [offer] = await findOffersByIds(deps.db, [found.offer_id]);
  const doc = offer.document as OfferInput;
  return {
    id: found.id,
    view: customerView(found, doc),
    voucher: found,
    notHere: locationRefusal(staff, doc),
    rollbackHours: deps.config.REDEMPTION_ROLLBACK_HOURS,
  };
}

/**
 * Redeems the voucher (a gift card: `amount`, else its whole balance) as the submission interface
 * does, recording the staff member. `attempt` is the page's idempotency key: the same form sent
 * twice (a double tap, a reload) redeems once.
 */
export async function redeemAtCounter(
  deps: Deps,
  staff: Staff,
  voucherId: string,
  attempt: string,
  amount?: Money,
): Promise<CounterVoucher> {
  const v = await lookUp(deps, staff, voucherId);
  if (v.notHere) throw new Failure('forbidden', v.notHere);
  const body = { voucher: { status: 'redeemed', amount } };
  await changeVoucherStatus(deps, scopeOf(staff), { advertiserId: staff.advertiser_id, ref: v.id }, 'redeemed', '', {
    amount,
    request: redeemRequestOf(body),
    idempotencyKey: `counter:${attempt}`,
    staff: { id: staff.id, name: staff.name },
  });
  return lookUp(deps, staff, v.id);
}

/** Undoes one of this staff member's own redemptions within REDEMPTION_ROLLBACK_HOURS, as the API's rollback. */
export async function undoAtCounter(deps: Deps, staff: Staff, voucherId: string, redemptionId: string): Promise<CounterVoucher> {
  const v = await lookUp(deps, staff, voucherId);
  const mine = v.voucher.redemptions.find((r) => r.id === redemptionId);
  if (!mine) throw notFound('redemption');
  if (mine.staff_id !== staff.id)
    throw new Failure('forbidden', 'only the staff member who made a redemption may undo it here; the advertiser may through the API');
  await rollbackRedemption(deps, scopeOf(staff), { advertiserId: staff.advertiser_id, ref: v.id }, redemptionId, '');
  return lookUp(deps, staff, v.id);
}

/** The redemptions this staff member made today, the shop's local day (the advertiser's time zone), newest first. */
export function todaysRedemptions(deps: Pick<ServiceDeps, 'db'>, staff: Staff, now = new Date()): Promise<CounterRedemption[]> {
  return staffRedemptionsSince(deps.db, staff.id, startOfLocalDay(now, staff.advertiser_time_zone));
}
