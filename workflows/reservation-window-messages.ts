import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { HoldReservationInput, ReservationOutcome } from '../domain/reservations';

export type { HoldReservationInput, ReservationChange, ReservationOutcome, ReservationRelease } from '../domain/reservations';

export const RESERVATION_WORKFLOW_TYPE = 'reservationWindowWorkflow';

export interface ReservationWindowInput {
  hold: HoldReservationInput;
  /** Set when continuing as new: the units are already held. */
  held?: boolean;
  endDate?: string;
  changes?: number;
}

export interface ReservationChangeArgs {
  quantity_reserved?: number;
  start_date?: string;
  end_date?: string;
}

/** Sent with the start: answers once the units are held or the hold is refused. */
export const heldUpdate = defineUpdate<ReservationOutcome>('held');
export const changeReservationUpdate = defineUpdate<ReservationOutcome, [ReservationChangeArgs]>('change');
export const cancelReservationUpdate = defineUpdate<{ status: string }>('cancel');
export const reservationStatusQuery = defineQuery<string>('status');
