import { sql } from 'kysely';
import type { Db, Trx } from './db';
import type { OrderItemRow, OrderRow, VoucherRow } from './database';
import type { Page, Paged } from '../domain/paging';
import { voucherCancellation, type CancelOrderInput, type Cancelled } from '../domain/orders';
import { giftCardBalance } from '../domain/redemptions';
import { soldItemKey } from '../domain/event-feed';
import { refusable } from '../domain/failures';
import { pageOf } from './paging';
import type { FoundOffer } from './distribution-search';
import { returnUnits } from './vouchers';
import { lockOffers } from './offer-stock';
import { appendOfferEvent } from './offer-events';
import { withLiveRedemptions, withRedemptions, type VoucherWithRedemptions } from './redemptions';

/*
 * Orders, their items and vouchers as every read answers them, and an order's cancellation (one
 * transaction keyed by the cancelling workflow: vouchers cancelled, units returned, partly spent
 * gift cards voided; run again, it finds the order cancelled and changes nothing). Placing is store/order-placing.ts.
 */

/**
 * Cancels the order (spec 3.2) at any age: all its vouchers are cancelled (domain/orders.ts
 * `voucherCancellation`). An acquired voucher's unit returns to stock (or to the reservation it came
 * from); a gift card partly spent is cancelled with its unspent balance voided (a
 * `voucher.balance_voided` event each), its unit staying sold; a redeemed voucher stays redeemed,
 * since it was used, and one cancelled before stays as it is. One transaction; a second call finds
 * the order cancelled and changes nothing.
 */
export async function cancelOrder(db: Db, c: CancelOrderInput): Promise<Cancelled> {
  return refusable(() =>
    db.transaction().execute(async (trx): Promise<Cancelled> => {
      const order = await trx.selectFrom('orders').select('status').where('id', '=', c.orderId).forUpdate().executeTakeFirstOrThrow();
      if (order.status === 'cancelled') return { ok: true, cancelledVouchers: 0 };
      const vouchers = await trx.selectFrom('vouchers').selectAll().where('order_id', '=', c.orderId).orderBy('id').forUpdate().execute();
      const spent = await withLiveRedemptions(
        trx,
        vouchers.filter((v) => v.status === 'acquired').map((v) => v.id),
      );
      const what = (v: VoucherRow) => voucherCancellation({ status: v.status, partlySpent: spent.has(v.id) });
      const live = vouchers.filter((v) => what(v) === 'cancel');
      const voided = vouchers.filter((v) => what(v) === 'void');
      const ending = [...live, ...voided];
      const now = new Date();
      if (ending.length) {
        // The offers first, in id order (returnUnits and the events lock them too): no deadlock with a placing.
        await lockOffers(
          trx,
          ending.map((v) => v.offer_id),
        );
        await trx
          .updateTable('vouchers')
          .set({ status: 'cancelled', cancelled_at: now, updated_at: now })
          .where(
            'id',
            'in',
            ending.map((v) => v.id),
          )
          .execute();
        await returnUnits(trx, c.key, live);
        for (const v of voided) await appendBalanceVoided(trx, c.key, v);
      }
      await trx.updateTable('orders').set({ status: 'cancelled', cancelled_at: now }).where('id', '=', c.orderId).execute();
      return { ok: true, cancelledVouchers: ending.length };
    }),
  );
}

/**
 * The event of a partly spent gift card its order's cancellation voided: what was left (`voided`)
 * can no longer be spent. Shaped like the redemption events (store/redemptions.ts), for the same
 * receivers: the offer's submission client and the distribution client that sold the card.
 */
async function appendBalanceVoided(trx: Trx, key: string, v: VoucherRow): Promise<void> {
  const left = giftCardBalance(v)!;
  await appendOfferEvent(trx, {
    key: `${key}:voided:${v.id}`,
    offerId: v.offer_id,
    type: 'voucher.balance_voided',
    data: {
      voucher_id: v.id,
      order_id: v.order_id,
      voucher_status: 'cancelled',
      balance: { currency_code: left.currency_code, amount: 0 },
      voided: left,
      distribution_client_id: v.client_id,
    },
  });
}

/** The columns of an order item its answers show (the offer as sold is read only where it is shown). */
export const ORDER_ITEM_COLUMNS = ['order_id', 'position', 'offer_id', 'quantity'] as const;
export type OrderItem = Pick<OrderItemRow, (typeof ORDER_ITEM_COLUMNS)[number]>;

/** An order with its items (in their order), its vouchers (maybe only the first ones) and how many it has. */
export type OrderWithDetails = OrderRow & { items: OrderItem[]; vouchers: VoucherWithRedemptions[]; voucher_count: number };

/**
 * The offers as these order items sold them (by `soldItemKey` → the row the distribution
 * view reads): what a distributor the offer is no longer open to sees of it through its vouchers.
 */
export async function offersAsSold(db: Db | Trx, items: { order_id: string; offer_id: string }[]): Promise<Map<string, FoundOffer>> {
  if (items.length === 0) return new Map();
  const rows = await db
    .selectFrom('order_items')
    .select(['order_id', 'offer_id', 'offer_as_sold'])
    .where('order_id', 'in', [...new Set(items.map((i) => i.order_id))])
    .where('offer_as_sold', 'is not', null)
    .execute();
  return new Map(rows.map((r) => [soldItemKey(r), r.offer_as_sold as FoundOffer]));
}

/** Vouchers in the order every read answers them: by offer, then purchase time, then id. */
export function sortVouchers<V extends VoucherRow>(vouchers: V[]): V[] {
  const key = (v: VoucherRow) => [v.offer_id, v.acquired_at.toISOString(), v.id];
  return [...vouchers].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
  });
}

/** With `vouchersPerOrder`, only that many vouchers of each order are read (lists stay bounded). */
export async function withDetails(db: Db, rows: OrderRow[], vouchersPerOrder?: number): Promise<OrderWithDetails[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const ranked = db
    .selectFrom('vouchers')
    .selectAll()
    .select([
      // Byte order (C collation), the order sortVouchers gives a placing answer.
      sql<number>`row_number() over (partition by order_id order by offer_id collate "C", acquired_at, id collate "C")`.as('rank_in_order'),
      sql<string>`count(*) over (partition by order_id)`.as('count_in_order'),
    ])
    .where('order_id', 'in', ids);
  const [items, ranks] = await Promise.all([
    db.selectFrom('order_items').select(ORDER_ITEM_COLUMNS).where('order_id', 'in', ids).orderBy('order_id').orderBy('position').execute(),
    db
      .selectFrom(ranked.as('v'))
      .selectAll()
      .$if(vouchersPerOrder !== undefined, (q) => q.where('rank_in_order', '<=', vouchersPerOrder!))
      .orderBy('order_id')
      .orderBy('rank_in_order')
      .execute(),
  ]);
  const vouchers = await withRedemptions(
    db,
    ranks.map(({ rank_in_order: _rank, count_in_order: _count, ...v }) => v as VoucherRow),
  );
  return rows.map((r) => {
    const mine = ranks.filter((v) => v.order_id === r.id);
    return {
      ...r,
      items: items.filter((i) => i.order_id === r.id),
      vouchers: vouchers.filter((v) => v.order_id === r.id),
      voucher_count: mine.length ? Number(mine[0].count_in_order) : 0,
    };
  });
}

/** One order of this distribution client; another client's order is not found. */
export async function findOrder(db: Db, clientId: string, orderId: string): Promise<OrderWithDetails | undefined> {
  const row = await db.selectFrom('orders').selectAll().where('id', '=', orderId).where('client_id', '=', clientId).executeTakeFirst();
  return row ? (await withDetails(db, [row]))[0] : undefined;
}

/** Any client's order (for operators, never the API). */
export async function findAnyOrder(db: Db, orderId: string): Promise<OrderWithDetails | undefined> {
  const row = await db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
  return row ? (await withDetails(db, [row]))[0] : undefined;
}

/** This client's orders, newest first, with at most `vouchersPerOrder` vouchers each when given. */
export async function listOrders(
  db: Db,
  clientId: string,
  q: Page & { order_number?: string; status?: OrderRow['status']; account_id?: string },
  vouchersPerOrder?: number,
): Promise<Paged<OrderWithDetails>> {
  let query = db.selectFrom('orders').where('client_id', '=', clientId);
  if (q.order_number) query = query.where('order_number', '=', q.order_number);
  if (q.status) query = query.where('status', '=', q.status);
  if (q.account_id) query = query.where('account_id', '=', q.account_id);
  const { rows, total } = await pageOf(query, q, (f) => f.selectAll().orderBy('purchased_at', 'desc').orderBy('id'));
  return { rows: await withDetails(db, rows, vouchersPerOrder), total };
}
