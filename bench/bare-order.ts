import crypto from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '../store/db';
import { DISTRIBUTION_VIEW_COLUMNS } from '../store/distribution-search';

/** The offer row as the service's order item keeps it (store/order-placing.ts): the distribution view's columns. */
const AS_SOLD = sql.join(DISTRIBUTION_VIEW_COLUMNS.map((c) => sql`${sql.lit(c)}, o.${sql.ref(c)}`));

/**
 * The orders section's baseline (bench/orders.ts): an order's database work alone, as one bare pg
 * transaction from Node, writing what the service writes for an order of one unit (store/order-placing.ts):
 * the order row, the stock taken with its `offer.stock_changed` event, the item with its offer as sold,
 * and the voucher with its sale figures; what the service does per order minus HTTP, Temporal and the plan.
 */
export async function bareOrder(db: Db, clientId: string, offerId: string, orderNumber: string): Promise<boolean> {
  await db.transaction().execute(async (trx) => {
    const orderId = `ord_${crypto.randomBytes(12).toString('base64url')}`;
    const taken = await sql<{ quantity_in_stock: number; event_sequence: number }>`
      with offer as (
        update offers set quantity_in_stock = quantity_in_stock - 1, event_sequence = event_sequence + 1
        where id = ${offerId} and quantity_in_stock >= 1
        returning id, quantity_in_stock, reserved_quantity, event_sequence)
      insert into offer_events (id, offer_id, sequence, type, data)
      select ${`evt_${crypto.randomBytes(12).toString('base64url')}`}, id, event_sequence, 'offer.stock_changed',
             jsonb_build_object('quantity_in_stock', quantity_in_stock, 'reserved_quantity', reserved_quantity,
                                'change', -1, 'reserved_change', 0, 'reason', 'order_placed')
      from offer
      returning data->>'quantity_in_stock' as quantity_in_stock, sequence as event_sequence`.execute(trx);
    if (taken.rows.length === 0) throw new Error('sold out');
    await trx
      .insertInto('orders')
      .values({
        id: orderId,
        client_id: clientId,
        order_number: orderNumber,
        order_key: `bench:${orderNumber}`,
        customer_name: 'Bench Customer',
        status: 'active',
      } as never)
      .execute();
    await sql`
      insert into order_items (order_id, position, offer_id, quantity, offer_as_sold)
      select ${orderId}, 0, o.id, 1, jsonb_build_object(${AS_SOLD}) from offers o where o.id = ${offerId}`.execute(trx);
    const code = crypto.randomBytes(10).toString('hex').toUpperCase();
    await trx
      .insertInto('vouchers')
      .values({
        id: `vch_${crypto.randomBytes(12).toString('base64url')}`,
        offer_id: offerId,
        order_id: orderId,
        client_id: clientId,
        counts_stock: true,
        redemption_code: code,
        barcode: code,
        customer_name: 'Bench Customer',
        customer_key: 'BENCH CUSTOMER',
        status: 'acquired',
        expiration_date: '2099-12-31',
        sale_price_amount: 1000,
        sale_price_currency: 'USD',
        sale_distributor_revenue: 200,
        sale_account_revenue: 100,
      } as never)
      .execute();
  });
  return true;
}
