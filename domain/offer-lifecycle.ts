/*
 * The offer's state machine (spec §3.1, completed by us; docs/offer-lifecycle.md draws it).
 * Pure data and functions: the review workflow's update validator and the API's pre-checks share
 * it, and it is unit-tested alone. No Temporal imports here.
 */

export const OFFER_STATUSES = ['pending', 'approved', 'rejected', 'withdrawn', 'suspended', 'resumed', 'cancelled', 'closed'] as const;
export type OfferStatus = (typeof OFFER_STATUSES)[number];

/** Statuses a client may set with `PUT /offers/:id {offer:{status}}` (spec §3.1). */
export const CLIENT_STATUSES = ['pending', 'withdrawn', 'suspended', 'resumed', 'cancelled'] as const;
export type ClientStatus = (typeof CLIENT_STATUSES)[number];

/** Moves an advertiser may make with `PUT /offers/:id {offer:{status}}`, by current status. */
export const CLIENT_MOVES: Readonly<Record<OfferStatus, readonly ClientStatus[]>> = {
  pending: ['withdrawn', 'cancelled'],
  approved: ['withdrawn', 'suspended', 'cancelled'],
  rejected: ['withdrawn', 'cancelled'],
  withdrawn: ['pending', 'cancelled'],
  suspended: ['resumed', 'withdrawn', 'cancelled'],
  resumed: ['suspended', 'withdrawn', 'cancelled'],
  cancelled: [],
  closed: [],
};

/** Statuses in which the review team decides (signals `approve` / `reject`). */
export const REVIEWABLE: readonly OfferStatus[] = ['pending'];

/** Statuses that end the offer's life: its workflow completes. */
export const TERMINAL: readonly OfferStatus[] = ['cancelled', 'closed'];

/** Statuses in which publishers may see and sell the offer (within its dates and stock). */
export const SELLABLE: readonly OfferStatus[] = ['approved', 'resumed'];

/** The one status in which fields may be edited: withdraw first, then edit, then resubmit. */
export const EDITABLE: OfferStatus = 'withdrawn';

export function clientMoveError(from: OfferStatus, to: ClientStatus): string | undefined {
  if (from === to) return `the offer is already ${from}`;
  if (CLIENT_MOVES[from].includes(to)) return undefined;
  const allowed = CLIENT_MOVES[from];
  return allowed.length
    ? `an offer that is ${from} can move to ${allowed.join(', ')}, not ${to}`
    : `an offer that is ${from} cannot change status any more`;
}

export function editError(status: OfferStatus): string | undefined {
  return status === EDITABLE
    ? undefined
    : `an offer that is ${status} cannot be edited; withdraw it first (PUT {offer:{status:"withdrawn"}})`;
}

export function reviewError(status: OfferStatus): string | undefined {
  return REVIEWABLE.includes(status) ? undefined : `only a pending offer can be reviewed; this one is ${status}`;
}

/** Why publishers may not buy or reserve this offer on `today` (YYYY-MM-DD), or undefined when they may. */
export function unsellableReason(
  offer: { status: string; start_date: string; end_date: string } | undefined,
  today: string,
): string | undefined {
  if (!offer || !SELLABLE.includes(offer.status as OfferStatus)) return 'is not available';
  if (today < offer.start_date) return `is not on sale before ${offer.start_date}`;
  if (today > offer.end_date) return `ended on ${offer.end_date}`;
  return undefined;
}
