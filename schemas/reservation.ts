import { z } from 'zod';
import type { ReservationRow } from '../store/database';
import { DateString, Timestamp } from './common';
import { listEnvelope, okEnvelope, wrappedBody } from './envelope';
import { PageQuery } from './pagination';
import { utcDay } from '../domain/dates';
import { RESERVATION_END_REASONS, type ReservationEndReason } from '../domain/reservations';

/** `active` while held; `cancelled` by the client; `expired` when end_date passed (units returned). */
export const RESERVATION_STATUSES = ['active', 'cancelled', 'expired'] as const;
export const ReservationStatus = z
  .enum(RESERVATION_STATUSES)
  .describe(
    '`active` while held; `cancelled` by the client or with its offer (see end_reason); `expired` once its end_date is over, the unsold units back in general stock (`expired` is not in the spec: strict clients must accept it)',
  );

const window = (r: { start_date?: string; end_date?: string }, ctx: z.RefinementCtx) => {
  if (r.start_date && r.end_date && r.end_date < r.start_date)
    ctx.addIssue({ code: 'custom', path: ['end_date'], message: 'end_date must not be before start_date' });
};

export const ReservationCreate = z
  .object({
    account_id: z.string().min(1).max(64),
    quantity_reserved: z.number().int().min(1).max(1_000_000),
    start_date: DateString,
    end_date: DateString,
  })
  .superRefine(window);
export const ReservationUpdate = z
  .object({
    quantity_reserved: z.number().int().min(0).max(1_000_000).optional(),
    start_date: DateString.optional(),
    end_date: DateString.optional(),
  })
  .superRefine(window)
  .refine((u) => Object.keys(u).length > 0, { message: 'nothing to change' });

export const ReservationCreateBody = wrappedBody('reservation', ReservationCreate).meta({
  examples: [{ reservation: { account_id: 'acc_3Fh9x2', quantity_reserved: 10, start_date: '2026-06-01', end_date: '2026-06-30' } }],
});
export const ReservationUpdateBody = wrappedBody('reservation', ReservationUpdate);

export const Reservation = z.object({
  id: z.string(),
  offer_id: z.string(),
  account_id: z.string(),
  quantity_reserved: z.number().int(),
  /** What remains of the hold: reserved minus sold through it; 0 once released. */
  quantity_in_stock: z.number().int(),
  start_date: z.string(),
  end_date: z.string(),
  creation_date: z.string(),
  status: ReservationStatus,
  ended_at: Timestamp.nullable(),
  end_reason: z
    .enum(RESERVATION_END_REASONS)
    .nullable()
    .describe(
      'Why it ended: cancelled_by_client, end_date_passed, offer_cancelled / offer_closed (its offer ended, and the hold with it), or offer_exclusive (an edit made the offer exclusive to other distributors); null while active',
    ),
});

export const ReservationResponse = okEnvelope('reservation', Reservation);
export const ReservationList = listEnvelope('reservations', Reservation);
export const ReservationListQuery = PageQuery.extend({
  status: ReservationStatus.describe('Only reservations in this status: active, cancelled or expired').optional(),
  account_id: z.string().max(64).optional(),
});

/** A reservation row as the API shows it. */
export function toReservation(r: ReservationRow): z.output<typeof Reservation> {
  return {
    id: r.id,
    offer_id: r.offer_id,
    account_id: r.account_id,
    quantity_reserved: r.quantity_reserved,
    quantity_in_stock: r.quantity_in_stock,
    start_date: r.start_date,
    end_date: r.end_date,
    creation_date: utcDay(r.created_at),
    status: r.status,
    ended_at: r.ended_at?.toISOString() ?? null,
    end_reason: r.end_reason as ReservationEndReason | null,
  };
}
