import crypto from 'node:crypto';
import type { Db } from '../store/db';

/**
 * The orders section's baseline (bench/orders.ts): an order's database work alone (take stock,
 * insert order, item and voucher) as one bare pg transaction from Node, what the service does per
 * order minus HTTP and Temporal.
 */
export async function bareOrder(db: Db, clientId: string, offerId: string, orderNumber: string): Promise<boolean> {
  await db.transaction().execute(async (trx) => {
    const taken = await trx
      .updateTable('offers')
      .set((eb) => ({ quantity_in_stock: eb('quantity_in_stock', '-', 1), updated_at: new Date() }))
      .where('id', '=', offerId)
      .where('quantity_in_stock', '>=', 1)
      .returning('id')
      .executeTakeFirst();
    if (!taken) throw new Error('sold out');
    const orderId = `ord_${crypto.randomBytes(12).toString('base64url')}`;
    await trx
      .insertInto('orders')
      .values({
        id: orderId,
        client_id: clientId,
        order_number: orderNumber,
        workflow_id: `bench:${orderNumber}`,
        customer_name: 'Bench Customer',
        status: 'active',
      } as never)
      .execute();
    await trx
      .insertInto('order_items')
      .values({ order_id: orderId, position: 0, offer_id: offerId, quantity: 1 } as never)
      .execute();
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
        status: 'acquired',
        expiration_date: '2099-12-31',
      } as never)
      .execute();
  });
  return true;
}
