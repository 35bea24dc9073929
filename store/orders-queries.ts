import type { OrderRow } from './database';
import type { Db } from './db';
import type { Location } from '../schemas/common';
import type { z } from 'zod';
import type { Order } from '../schemas/order';
import { pageBounds, type PageQuery } from '../schemas/pagination';
import { toVoucher } from './vouchers-queries';

async function withDetails(db: Db, rows: OrderRow[]): Promise<z.output<typeof Order>[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const [items, vouchers] = await Promise.all([
    db.selectFrom('order_items').selectAll().where('order_id', 'in', ids).orderBy('order_id').orderBy('position').execute(),
    db
      .selectFrom('vouchers')
      .selectAll()
      .where('order_id', 'in', ids)
      .orderBy('order_id')
      .orderBy('offer_id')
      .orderBy('acquired_at')
      .orderBy('id')
      .execute(),
  ]);
  return rows.map((r) => ({
    id: r.id,
    order_number: r.order_number,
    status: r.status,
    items: items.filter((i) => i.order_id === r.id).map((i) => ({ offer_id: i.offer_id, quantity: i.quantity })),
    account_id: r.account_id,
    application_id: r.application_id,
    customer_name: r.customer_name,
    purchased_at: r.purchased_at.toISOString(),
    cancelled_at: r.cancelled_at?.toISOString() ?? null,
    shipping_address: (r.shipping_address as Location | null) ?? null,
    shipments: [],
    vouchers: vouchers.filter((v) => v.order_id === r.id).map(toVoucher),
  }));
}

/** One order of this distribution client; another client's order is not found. */
export async function findOrder(db: Db, clientId: string, orderId: string): Promise<z.output<typeof Order> | undefined> {
  const row = await db.selectFrom('orders').selectAll().where('id', '=', orderId).where('client_id', '=', clientId).executeTakeFirst();
  return row ? (await withDetails(db, [row]))[0] : undefined;
}

/** Any client's order, with who placed it and its workflow: for operators (admin CLI), never the API. */
export async function findOrderForOperator(db: Db, orderId: string) {
  const row = await db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirst();
  return row ? { client_id: row.client_id, workflow_id: row.workflow_id, ...(await withDetails(db, [row]))[0] } : undefined;
}

export async function listOrders(db: Db, clientId: string, q: PageQuery & { order_number?: string; status?: string; account_id?: string }) {
  let query = db.selectFrom('orders').where('client_id', '=', clientId);
  if (q.order_number) query = query.where('order_number', '=', q.order_number);
  if (q.status) query = query.where('status', '=', q.status as 'active');
  if (q.account_id) query = query.where('account_id', '=', q.account_id);
  const { limit, offset } = pageBounds(q);
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('purchased_at', 'desc').orderBy('id').limit(limit).offset(offset).execute(),
    query.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: await withDetails(db, rows), total: count.n };
}
