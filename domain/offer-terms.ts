import { Failure } from './failures';

/*
 * The advertiser's restrictions an order must keep (issue 20): how many units one order may buy
 * (`limit_per_order`) and how many one customer may hold (`limit_per_customer`). Pure rules: the
 * placing transaction (store/orders.ts) applies them to the offer it has locked, so parallel
 * orders are decided one after another. docs/orders-and-vouchers.md, "The advertiser's restrictions".
 */

/** The restrictions an offer's stored document (the validated OfferInput) carries, as these rules read them. */
export interface SaleRestrictions {
  limit_per_order?: number;
  limit_per_customer?: number;
  /** Weekdays (`monday` … `sunday`, UTC) a voucher may be redeemed on; absent: every day. */
  valid_days?: readonly string[];
  /** Shown to publishers and customers, not enforced: the advertiser checks them at redemption. */
  min_age?: number;
  new_customers_only?: boolean;
  appointment_required?: boolean;
  online_redemption?: boolean;
  notes?: string;
}

/** The `restrictions` of an offer's stored document, or an empty set. */
export function restrictionsOf(document: unknown): SaleRestrictions {
  return (document as { restrictions?: SaleRestrictions } | null)?.restrictions ?? {};
}

/** Refuses (422 `invalid_field` on `field`) an order item above the offer's `limit_per_order`. */
export function requireWithinOrderLimit(offer: { id: string; document: unknown }, quantity: number, field: string): void {
  const limit = restrictionsOf(offer.document).limit_per_order;
  if (limit === undefined || quantity <= limit) return;
  throw new Failure(
    'invalid_field',
    `offer ${offer.id} sells at most ${limit} unit(s) per order (restrictions.limit_per_order); ${quantity} asked`,
    {
      field,
      offer_id: offer.id,
      limit_per_order: limit,
    },
  );
}

/**
 * Refuses (409 `customer_limit_reached` on `field`) an order item that would give this customer
 * more live (not cancelled) vouchers of the offer than its `limit_per_customer`; `held` is how many
 * they hold now, counted under the offer's lock.
 */
export function requireWithinCustomerLimit(offer: { id: string; document: unknown }, held: number, quantity: number, field: string): void {
  const limit = restrictionsOf(offer.document).limit_per_customer;
  if (limit === undefined || held + quantity <= limit) return;
  throw new Failure(
    'customer_limit_reached',
    `offer ${offer.id} sells at most ${limit} unit(s) per customer (restrictions.limit_per_customer); this customer holds ${held} and asked ${quantity}`,
    { field, offer_id: offer.id, limit_per_customer: limit, held, available: Math.max(0, limit - held) },
  );
}

const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;

/** The weekday of `at` in UTC, as `valid_days` names it. */
export const utcWeekday = (at: Date): string => WEEKDAYS[at.getUTCDay()];

/**
 * Refuses (409 `outside_valid_days`) redeeming a voucher of an offer whose `restrictions.valid_days`
 * does not name the weekday of `at`, taken in UTC (offers carry no time zone): a till in New York
 * redeeming at 21:00 on a Monday is on Tuesday in UTC. docs/orders-and-vouchers.md.
 */
export function requireValidDay(offer: { id: string; document: unknown }, at: Date): void {
  const days = restrictionsOf(offer.document).valid_days;
  if (!days || days.length === 0) return;
  const today = utcWeekday(at);
  if (days.includes(today)) return;
  throw new Failure(
    'outside_valid_days',
    `vouchers of offer ${offer.id} are redeemed only on ${days.join(', ')} (restrictions.valid_days, UTC); today is ${today} in UTC`,
    { offer_id: offer.id, valid_days: [...days], weekday: today },
  );
}

/** The restrictions shown but not enforced, for the customer's voucher page. */
export function informationalRestrictions(document: unknown): string[] {
  const r = restrictionsOf(document);
  const lines: string[] = [];
  if (r.valid_days?.length) lines.push(`Redeemable on ${r.valid_days.join(', ')} (UTC days)`);
  if (r.min_age !== undefined) lines.push(`Minimum age ${r.min_age}`);
  if (r.new_customers_only) lines.push('New customers only');
  if (r.appointment_required) lines.push('Appointment required');
  if (r.online_redemption !== undefined) lines.push(r.online_redemption ? 'Redeemable online' : 'Redeem in person');
  if (r.limit_per_customer !== undefined) lines.push(`Limit ${r.limit_per_customer} per customer`);
  if (r.notes) lines.push(r.notes);
  return lines;
}
