import type { ActivityDeps } from './deps';
import type { VoucherWithRedemptions } from '../store/redemptions';
import { cancelOrder, type OrderWithDetails } from '../store/orders';
import { recordPlacedOrder, type OrderHooks } from '../store/order-placing';
import { saleRules } from '../domain/sales';
import { revenueShares } from '../domain/money';
import type { OrderSnapshot, VoucherSnapshot } from '../domain/orders';
import type { Location } from '../domain/location';
import { Failure, type Refused } from '../domain/failures';
import { giftCardBalance } from '../domain/redemptions';
import { unstorableValue } from '../platform/postgres-errors';
import type { CancelOrderInput } from '../workflows/order-cancellation-messages';
import type { PlacedAnswer, PlaceOrderBatch, PlaceOrderInput } from '../workflows/order-intake-messages';

/**
 * The placed order travels back in the activity's result and the `placeOrders` Update only up to this
 * many vouchers: it then stays far below Temporal's payload limits (2 MB warns, 4 MB fails), and
 * a larger order is read from the database by the API instead.
 */
const ANSWER_MAX_VOUCHERS = 100;

/** Activities of the order workflows (intake and cancellation); each order's placing is one idempotent transaction. */
export function createOrderActivities(deps: Pick<ActivityDeps, 'db' | 'config' | 'metrics'> & { orderHooks?: OrderHooks }) {
  const place = async (o: PlaceOrderInput): Promise<PlacedAnswer> => {
    const placed = await recordPlacedOrder(deps.db, o, saleRules, revenueShares(deps.config), deps.orderHooks);
    // The refusal was decided (and its transaction rolled back) here; a retry of an already
    // placed order (issued 0) counts neither.
    if (!placed.ok) {
      deps.metrics.orderRefused(placed.code);
      return placed;
    }
    if (placed.issued > 0) deps.metrics.orderPlaced(placed.issued);
    const { order, ...rest } = placed;
    return order.vouchers.length <= ANSWER_MAX_VOUCHERS ? { ...rest, orderSnapshot: orderSnapshot(order) } : rest;
  };
  return {
    /**
     * The orders an intake workflow took together, one transaction each, so that one order's
     * refusal rolls back only that order; answered in the batch's order. Postgres serialises what
     * must be (the offers' row locks, taken in id order; the order's key). A fault that retrying
     * may fix (Postgres restarting) fails the whole call, which is retried: an order it had placed
     * is then found by its request id and answered as placed, with nothing written twice.
     */
    placeOrderBatch: async ({ orders }: PlaceOrderBatch): Promise<PlacedAnswer[]> => {
      const settled = await Promise.allSettled(
        orders.map((o) =>
          place(o).catch((err: unknown) => {
            const refused = refusedForGood(err);
            deps.metrics.orderRefused(refused.code);
            return refused;
          }),
        ),
      );
      const fault = settled.find((r) => r.status === 'rejected');
      if (fault) throw fault.reason;
      return settled.map((r) => (r as PromiseFulfilledResult<PlacedAnswer>).value);
    },
    cancelOrder: (c: CancelOrderInput) => cancelOrder(deps.db, c),
  };
}

/** A value Postgres refuses in one order is that order's refusal (retrying cannot fix it); other faults are thrown. */
function refusedForGood(err: unknown): Refused {
  const refusal = err instanceof Failure ? err : unstorableValue(err);
  if (!refusal) throw err;
  return refusal.toRefused();
}

/** The order as placing wrote it, as plain JSON for the workflow's history (the API maps it to its view). */
function orderSnapshot(o: OrderWithDetails): OrderSnapshot {
  return {
    id: o.id,
    order_number: o.order_number,
    status: o.status,
    account_id: o.account_id,
    application_id: o.application_id,
    customer_name: o.customer_name,
    customer_reference: o.customer_reference,
    shipping_address: (o.shipping_address as Location | null) ?? null,
    purchased_at: o.purchased_at.toISOString(),
    cancelled_at: o.cancelled_at?.toISOString() ?? null,
    items: o.items.map((i) => ({ offer_id: i.offer_id, quantity: i.quantity })),
    vouchers: o.vouchers.map(voucherSnapshot),
    voucher_count: o.voucher_count,
  };
}

function voucherSnapshot(v: VoucherWithRedemptions): VoucherSnapshot {
  return {
    id: v.id,
    offer_id: v.offer_id,
    order_id: v.order_id,
    account_id: v.account_id,
    reservation_id: v.reservation_id,
    redemption_code: v.redemption_code,
    barcode: v.barcode,
    customer_name: v.customer_name,
    status: v.status,
    expiration_date: v.expiration_date,
    acquired_at: v.acquired_at.toISOString(),
    redeemed_at: v.redeemed_at?.toISOString() ?? null,
    cancelled_at: v.cancelled_at?.toISOString() ?? null,
    page_token: v.page_token,
    balance: giftCardBalance(v),
    redemptions: v.redemptions.map((r) => ({
      id: r.id,
      amount: r.amount,
      currency_code: r.currency_code,
      redeemed_at: r.redeemed_at.toISOString(),
      rolled_back_at: r.rolled_back_at?.toISOString() ?? null,
    })),
    redemption_count: v.redemption_count,
  };
}
