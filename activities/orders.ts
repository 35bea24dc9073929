import { ordersPlaced, vouchersIssued } from '../infra/metrics';
import type { ActivityDeps } from './deps';
import { cancelOrder, placeOrder, type OrderHooks } from '../store/orders';
import type { CancelOrderInput, PlaceOrderInput } from '../workflows/order-fulfilment-messages';

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
    cancelOrder: (c: CancelOrderInput) => cancelOrder(deps.db, c),
  };
}
