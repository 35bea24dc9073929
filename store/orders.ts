import { sql } from 'kysely';
import type { Db } from './db';
import type { OrderItemRow, OrderRow, VoucherRow } from './database';
import type { Page, Paged } from '../domain/paging';
import type { CancelOrderInput, Cancelled } from '../domain/orders';
import { refusable } from '../domain/failures';
import { pageOf } from './paging';
import { returnUnits } from './vouchers';
import { withLiveRedemptions, withRedemptions, type VoucherWithRedemptions } from './redemptions';

/*
 * Orders, their items and vouchers as every read answers them, and an order's cancellation (one
 * transaction keyed by the cancelling workflow: vouchers cancelled, units returned; run again, it
 * finds the order cancelled and changes nothing). Placing is store/order-placing.ts.
 */

/**
 * Cancels the order (spec 3.2) at any age: its acquired vouchers are cancelled and their units
 * return to stock (or to the reservation they came from); a redeemed voucher stays redeemed, since
 * it was used, as does a gift card partly spent (acquired, with its balance), and one cancelled
 * before stays as it is. One transaction; a second call finds the
 * order cancelled and changes nothing.
 */
export async function cancelOrder(db: Db, c: CancelOrderInput): Promise<Cancelled> {
  return refusable(() =>
    db.transaction().execute(async (trx): Promise<Cancelled> => {
      const order = await trx.selectFrom('orders').select('status').where('id', '=', c.orderId).forUpdate().executeTakeFirstOrThrow();
      if (order.status === 'cancelled') return { ok: true, cancelledVouchers: 0 };
      const vouchers = await trx.selectFrom('vouchers').selectAll().where('order_id', '=', c.orderId).orderBy('id').forUpdate().execute();
      const acquired = vouchers.filter((v) => v.status === 'acquired');
      const used = await withLiveRedemptions(
        trx,
        acquired.map((v) => v.id),
      );
      const live = acquired.filter((v) => !used.has(v.id));
      const now = new Date();
      if (live.length) {
        await trx
          .updateTable('vouchers')
          .set({ status: 'cancelled', cancelled_at: now, updated_at: now })
          .where(
            'id',
            'in',
            live.map((v) => v.id),
          )
          .execute();
        await returnUnits(trx, c.key, live);
      }
      await trx.updateTable('orders').set({ status: 'cancelled', cancelled_at: now }).where('id', '=', c.orderId).execute();
      return { ok: true, cancelledVouchers: live.length };
    }),
  );
}

/** An order with its items (in their order), its vouchers (maybe only the first ones) and how many it has. */
export type OrderWithDetails = OrderRow & { items: OrderItemRow[]; vouchers: VoucherWithRedemptions[]; voucher_count: number };

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
    db.selectFrom('order_items').selectAll().where('order_id', 'in', ids).orderBy('order_id').orderBy('position').execute(),
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

/** One order's row, which must exist. */
export function findOrderRow(db: Db, orderId: string): Promise<OrderRow> {
  return db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
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
