import type { ActivityDeps } from './deps';
import { changeReservation, holdReservation, releaseReservation } from '../store/reservations';
import { saleRules } from '../domain/sales';
import type { HoldReservationInput, ReservationChange, ReservationRelease } from '../workflows/reservation-window-messages';

/** Activities of the reservation-window workflow; each is one idempotent transaction. */
export function createReservationActivities(deps: Pick<ActivityDeps, 'db'>) {
  return {
    holdReservation: (r: HoldReservationInput) => holdReservation(deps.db, r, saleRules),
    changeReservation: (c: ReservationChange) => changeReservation(deps.db, c, saleRules),
    releaseReservation: async (r: ReservationRelease) => {
      const row = await releaseReservation(deps.db, r);
      return { status: row.status };
    },
  };
}
