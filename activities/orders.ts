import { ordersPlaced, vouchersIssued } from '../infra/metrics';
import type { ActivityDeps } from './deps';
import { cancelOrder, placeOrder, type OrderHooks, type PlaceOrderInput } from '../store/orders';
import {
  changeReservation,
  holdReservation,
  releaseReservation,
  type HoldReservationInput,
  type ReservationChange,
} from '../store/reservations';

/** Activities of the order-fulfilment workflow; each is one idempotent transaction. */
export function createOrderActivities(deps: Pick<ActivityDeps, 'db'> & { orderHooks?: OrderHooks }) {
  return {
    placeOrder: async (o: PlaceOrderInput) => {
      const placed = await placeOrder(deps.db, o, deps.orderHooks);
      if (placed.ok && placed.issued > 0) {
        ordersPlaced.inc();
        vouchersIssued.inc(placed.issued);
      }
      return placed;
    },
    cancelOrder: (c: { key: string; orderId: string }) => cancelOrder(deps.db, c),
  };
}

/** Activities of the reservation-window workflow. */
export function createReservationActivities(deps: Pick<ActivityDeps, 'db'>) {
  return {
    holdReservation: (r: HoldReservationInput) => holdReservation(deps.db, r),
    changeReservation: (c: ReservationChange) => changeReservation(deps.db, c),
    releaseReservation: async (r: { key: string; reservationId: string; to: 'cancelled' | 'expired' }) => {
      const row = await releaseReservation(deps.db, r);
      return { status: row.status };
    },
  };
}
