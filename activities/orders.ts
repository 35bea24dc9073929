import type { ActivityDeps } from './deps';
import { cancelOrder, placeOrder, type OrderHooks } from '../store/orders';
import { saleRules } from '../domain/sales';
import { toOrder } from '../schemas/order';
import type { CancelOrderInput, PlacedAnswer, PlaceOrderInput } from '../workflows/order-fulfilment-messages';

/**
 * The placed order travels back in the activity's result and the `placed` update only up to this
 * many vouchers: it then stays far below Temporal's payload limits (2 MB warns, 4 MB fails), and
 * a larger order is read from the database by the API instead.
 */
const ANSWER_MAX_VOUCHERS = 100;

/** Activities of the order-fulfilment workflow; each is one idempotent transaction. */
export function createOrderActivities(deps: Pick<ActivityDeps, 'db' | 'localWorker' | 'metrics'> & { orderHooks?: OrderHooks }) {
  /** The answer, and to an API of this same process waiting for it, at once (an eagerly started order). */
  const answer = (o: PlaceOrderInput, a: PlacedAnswer): PlacedAnswer => {
    deps.localWorker?.placed.notify(o.workflowId, a);
    return a;
  };
  return {
    placeOrder: async (o: PlaceOrderInput): Promise<PlacedAnswer> => {
      const placed = await placeOrder(deps.db, o, saleRules, deps.orderHooks);
      // The refusal was decided (and its transaction rolled back) here; a retry of an already
      // placed order (issued 0) counts neither.
      if (!placed.ok) {
        deps.metrics.orderRefused(placed.code);
        return answer(o, placed);
      }
      if (placed.issued > 0) deps.metrics.orderPlaced(placed.issued);
      const { order, ...rest } = placed;
      // The site's address is the request's (or PUBLIC_BASE_URL), known to the API only: print_url
      // travels as a path and the API makes it absolute (services/orders.ts).
      return answer(o, order.vouchers.length <= ANSWER_MAX_VOUCHERS ? { ...rest, order: toOrder(order, '') } : rest);
    },
    cancelOrder: (c: CancelOrderInput) => cancelOrder(deps.db, c),
  };
}
