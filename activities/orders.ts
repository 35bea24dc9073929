import type { ActivityDeps } from './deps';
import type { VoucherWithRedemptions } from '../store/redemptions';
import { cancelOrder, type OrderWithDetails } from '../store/orders';
import { lockOrderState, ordersPlacedBefore, writeOrderPlan, type OrderHooks } from '../store/order-placing';
import { derivedId } from '../store/ids';
import { newRedemptionCode } from '../store/vouchers';
import { saleRules } from '../domain/sales';
import { planOrders } from '../domain/order-plan';
import type { PlanTools } from '../domain/order-state';
import { utcDay } from '../domain/dates';
import { revenueShares } from '../domain/money';
import type { OrderSnapshot, VoucherSnapshot } from '../domain/orders';
import type { Location } from '../domain/location';
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

/** Activities of the order workflows (intake and cancellation). */
export function createOrderActivities(deps: Pick<ActivityDeps, 'db' | 'config' | 'metrics'> & { orderHooks?: OrderHooks }) {
  const tools: PlanTools = { rules: saleRules, shares: revenueShares(deps.config), derivedId, newCode: newRedemptionCode };

  /**
   * The batch in one transaction: load (lock and read what its orders need), plan (domain/order-plan.ts
   * decides each order: its refusal or its changes), write (one statement per table), one commit.
   */
  const placeTogether = async (orders: PlaceOrderInput[]): Promise<PlacedAnswer[]> => {
    const { plan, placed, before } = await deps.db.transaction().execute(async (trx) => {
      const plan = planOrders(orders, await lockOrderState(trx, orders, utcDay()), tools);
      const placed = await writeOrderPlan(trx, plan, deps.orderHooks);
      const before = await ordersPlacedBefore(
        trx,
        plan.decisions.flatMap((d) => (d.kind === 'placedBefore' ? [d.orderId] : [])),
      );
      return { plan, placed, before };
    });
    // Counted once committed; a retry of an already placed order (issued 0) counts neither.
    return plan.decisions.map((d, i): PlacedAnswer => {
      if (d.kind === 'refused') {
        deps.metrics.orderRefused(d.refusal.code);
        return d.refusal;
      }
      const order = (d.kind === 'placed' ? placed : before).get(orders[i].orderId)!;
      const issued = d.kind === 'placed' ? d.changes.vouchers.length : 0;
      if (issued > 0) deps.metrics.orderPlaced(issued);
      const answer = { ok: true as const, orderId: order.id, issued };
      return order.vouchers.length <= ANSWER_MAX_VOUCHERS ? { ...answer, orderSnapshot: orderSnapshot(order) } : answer;
    });
  };

  return {
    /**
     * The orders an intake workflow took together, answered in the batch's order: each its order or
     * its refusal, decided together and written in one transaction. A fault that retrying may fix
     * (Postgres restarting) fails the whole call, which is retried: the orders it had placed are then
     * found by their request ids and answered as placed, with nothing written twice. A value Postgres
     * refuses (retrying cannot fix it) is one order's: the batch is then placed an order at a time,
     * so only that order is refused.
     */
    placeOrderBatch: async ({ orders }: PlaceOrderBatch): Promise<PlacedAnswer[]> => {
      try {
        return await placeTogether(orders);
      } catch (err) {
        if (!unstorableValue(err)) throw err;
        if (orders.length === 1) return refusedAlone(deps.metrics)(err);
        return (await Promise.all(orders.map((o) => placeTogether([o]).catch(refusedAlone(deps.metrics))))).flat();
      }
    },
    cancelOrder: (c: CancelOrderInput) => cancelOrder(deps.db, c),
  };
}

/** One order placed alone: a value Postgres refuses is its refusal; other faults are thrown. */
const refusedAlone =
  (metrics: ActivityDeps['metrics']) =>
  (err: unknown): PlacedAnswer[] => {
    const refusal = unstorableValue(err);
    if (!refusal) throw err;
    metrics.orderRefused(refusal.code);
    return [refusal.toRefused()];
  };

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
