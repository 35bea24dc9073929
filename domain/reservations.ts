import type { Refused } from './failures';

/*
 * What the reservation-window workflow hands its activities and gets back: shared by the workflow
 * contract (workflows/reservation-window-messages.ts) and the data layer (store/reservations.ts).
 */

export interface HoldReservationInput {
  reservationId: string;
  clientId: string;
  offerId: string;
  accountId: string;
  quantity: number;
  startDate: string;
  endDate: string;
}

/** A change of quantity or window, in absolute values; `key` makes its stock event idempotent. */
export interface ReservationChange {
  key: string;
  reservationId: string;
  quantity_reserved?: number;
  start_date?: string;
  end_date?: string;
}

/** The end of a hold: cancelled by the client, or expired once end_date is over. */
export interface ReservationRelease {
  key: string;
  reservationId: string;
  to: 'cancelled' | 'expired';
}

/**
 * Why a reservation ended: its client cancelled it, its end_date passed, its offer was cancelled
 * or closed (the offer's move ends every active hold in the same transaction: nothing is sold from
 * them), or an edit made the offer exclusive to other distributors (the edit ends the holds of
 * those it leaves out, the same way).
 */
export const RESERVATION_END_REASONS = [
  'cancelled_by_client',
  'end_date_passed',
  'offer_cancelled',
  'offer_closed',
  'offer_exclusive',
] as const;

/** The reasons for which a reservation ended with a change of its offer, not by its own workflow. */
export const ENDED_BY_OFFER: readonly ReservationEndReason[] = ['offer_cancelled', 'offer_closed', 'offer_exclusive'];
export type ReservationEndReason = (typeof RESERVATION_END_REASONS)[number];

export type ReservationOutcome = { ok: true; endDate: string } | Refused;
