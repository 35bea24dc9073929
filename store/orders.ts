import { sql } from 'kysely';
import type { Db, Trx } from './db';
import type { OrderItemRow, OrderRow, VoucherRow } from './database';
import type { Page, Paged } from '../domain/paging';
import type { CancelOrderInput, Cancelled, Placed, PlaceOrderInput } from '../domain/orders';
import type { Refused } from '../domain/failures';
import type { SaleRules } from '../domain/sales';
import { refusable, refuse } from '../domain/failures';
import { utcDay } from '../domain/dates';
import { distributionRevenues, type Money, type RevenueShares } from '../domain/money';
import { findAccount } from './accounts';
import { derivedId } from './ids';
import { lockOffers, moveStock, type LockedOffer } from './offer-stock';
import { pageOf } from './paging';
import { lockUsableReservation, takeReservedUnits } from './reservations';
import { countCustomerVouchers, expirationDate, newRedemptionCode, returnUnits } from './vouchers';
import { customerKey, restrictionsOf } from '../domain/offer-terms';
import { vouchersExpireOf } from '../domain/voucher-expiry';
import { useSuppliedCodes } from './supplied-vouchers';
import { giftCardValue } from '../domain/redemptions';
import { withLiveRedemptions, withRedemptions, type VoucherWithRedemptions } from './redemptions';

/*
 * Orders, their items and the vouchers they issue. An order's two writes are each ONE transaction
 * keyed by the order's workflow id: placing (order row, stock of every item, one voucher per unit)
 * and cancelling (vouchers cancelled, units returned). A retried activity finds its work
 * committed and changes nothing; a refusal rolls everything back.
 */

/** Test seam: called inside the placing transaction after the stock is taken, before vouchers exist. */
export interface OrderHooks {
  afterStockTaken?: (orderId: string) => Promise<void>;
}

/** Takes one item's units: from this account's active reservation first, then from general stock. */
type TakenUnits = { reservationId: string | null; fromReservation: number };

async function takeUnits(trx: Trx, o: PlaceOrderInput, i: number, offer: LockedOffer, today: string): Promise<TakenUnits> {
  const { quantity } = o.items[i];
  if (offer.quantity_in_stock === null) return { reservationId: null, fromReservation: 0 };
  const res = o.accountId
    ? await lockUsableReservation(trx, { offerId: offer.id, accountId: o.accountId, clientId: o.clientId, today })
    : undefined;
  const fromReservation = Math.min(quantity, res?.quantity_in_stock ?? 0);
  const general = quantity - fromReservation;
  if (offer.quantity_in_stock < general) {
    const available = offer.quantity_in_stock + fromReservation;
    refuse('insufficient_stock', `offer ${offer.id} has ${available} unit(s) available for this order, ${quantity} asked`, {
      field: `items[${i}].quantity`,
      offer_id: offer.id,
      available,
    });
  }
  if (res && fromReservation > 0) await takeReservedUnits(trx, res.id, fromReservation);
  await moveStock(trx, offer, {
    stock: -general,
    reserved: -fromReservation,
    key: `${o.workflowId}:place:${offer.id}`,
    reason: 'order_placed',
  });
  return { reservationId: res && fromReservation > 0 ? res.id : null, fromReservation };
}

/** A placed order as the placing transaction wrote it (or found it, on a retry). */
export type PlacedOrder = Extract<Placed, { ok: true }> & { order: OrderWithDetails };

/**
 * Places the order: its row, the stock of every item and one voucher per unit, in one transaction
 * of few round trips (the order row; the offers locked; one statement per stock move with its
 * event; the items; the vouchers), returning what it wrote so nobody reads it again. The account
 * and the offers are checked with `rules` (domain/sales.ts) in that transaction, once locked.
 */
export async function placeOrder(
  db: Db,
  o: PlaceOrderInput,
  rules: SaleRules,
  shares: RevenueShares,
  hooks: OrderHooks = {},
): Promise<PlacedOrder | Refused> {
  return refusable(() =>
    db.transaction().execute(async (trx): Promise<PlacedOrder> => {
      // The order row first: a concurrent retry of this activity waits on its key, then finds it.
      const order = await insertOrderRow(trx, o);
      if (!order) return placedBefore(trx, o);
      if (o.accountId) rules.requireAccount(o.accountId, await findAccount(trx, o.clientId, o.accountId));
      const today = utcDay();
      const offers = await lockOffers(
        trx,
        o.items.map((it) => it.offer_id),
      );
      o.items.forEach((it, i) => {
        // An offer exclusive to other distributors does not exist for this one.
        const found = offers.get(it.offer_id);
        const why = rules.unsellableReason(found && rules.openTo(found.document, o.clientId, today) ? found : undefined, today);
        if (why) refuse('invalid_field', `offer ${it.offer_id} ${why}`, { field: `items[${i}].offer_id` });
        const offer = offers.get(it.offer_id)!;
        rules.requireUnexpiredVouchers({ id: offer.id, vouchers_expire: vouchersExpireOf(offer.document) }, today, `items[${i}].offer_id`);
        rules.requireWithinOrderLimit(offer, it.quantity, `items[${i}].quantity`);
      });
      await requireCustomerLimits(trx, o, offers, rules);
      const taken: TakenUnits[] = [];
      for (let i = 0; i < o.items.length; i++) taken.push(await takeUnits(trx, o, i, offers.get(o.items[i].offer_id)!, today));
      await hooks.afterStockTaken?.(o.orderId);
      const items = await trx
        .insertInto('order_items')
        .values(o.items.map((it, position) => ({ order_id: o.orderId, position, ...it })))
        .returningAll()
        .execute();
      const vouchers = await issueVouchers(trx, o, offers, taken, today, shares);
      return {
        ok: true,
        orderId: o.orderId,
        issued: vouchers.length,
        order: { ...order, items, vouchers: sortVouchers(vouchers), voucher_count: vouchers.length },
      };
    }),
  );
}

/** Each item within its offer's limit_per_customer, counted under the offers' locks taken above. */
async function requireCustomerLimits(trx: Trx, o: PlaceOrderInput, offers: Map<string, LockedOffer>, rules: SaleRules): Promise<void> {
  const key = customerKey(o.customerReference, o.customerName);
  for (const [i, it] of o.items.entries()) {
    const offer = offers.get(it.offer_id)!;
    if (restrictionsOf(offer.document).limit_per_customer === undefined) continue;
    const held = await countCustomerVouchers(trx, { offerId: offer.id, clientId: o.clientId, customerKey: key });
    rules.requireWithinCustomerLimit(offer, held, it.quantity, `items[${i}].quantity`);
  }
}

/** Inserts the order row; undefined when it exists already (a retry of the placing activity). */
function insertOrderRow(trx: Trx, o: PlaceOrderInput): Promise<OrderRow | undefined> {
  return trx
    .insertInto('orders')
    .values({
      id: o.orderId,
      client_id: o.clientId,
      order_number: o.orderNumber,
      workflow_id: o.workflowId,
      account_id: o.accountId,
      application_id: o.applicationId,
      customer_name: o.customerName,
      customer_reference: o.customerReference ?? null,
      shipping_address: o.shippingAddress ? JSON.stringify(o.shippingAddress) : null,
      status: 'active',
      request_id: o.requestId ?? null,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .returningAll()
    .executeTakeFirst();
}

/**
 * The order was there already. Placed by the same request (the request id, or none on both sides:
 * the per-order workflow's own retry), it is answered as placed; otherwise its order_number is a
 * duplicate, refused with the order's id (no workflow start refuses it on the sharded path).
 */
async function placedBefore(trx: Trx, o: PlaceOrderInput): Promise<PlacedOrder> {
  const row = await orderRow(trx, o.orderId);
  if (row.request_id !== (o.requestId ?? null)) {
    refuse('duplicate', `order_number ${o.orderNumber} is already used by order ${o.orderId}`, {
      field: 'order_number',
      order_id: o.orderId,
    });
  }
  return { ok: true, orderId: o.orderId, issued: 0, order: (await withDetails(trx, [row]))[0] };
}

function orderRow(db: Db, orderId: string): Promise<OrderRow> {
  return db.selectFrom('orders').selectAll().where('id', '=', orderId).executeTakeFirstOrThrow();
}

/**
 * Issues the order's vouchers: one per unit, each drawn from the reservation its unit came from.
 * One step of its own, so how codes are made (generated here) can change without touching stock.
 */
async function issueVouchers(
  trx: Trx,
  o: PlaceOrderInput,
  offers: Map<string, LockedOffer>,
  taken: TakenUnits[],
  today: string,
  shares: RevenueShares,
): Promise<VoucherWithRedemptions[]> {
  const customer = customerKey(o.customerReference, o.customerName);
  const rows = o.items.flatMap((it, i) => {
    const offer = offers.get(it.offer_id)!;
    // A gift card's value is fixed when it is sold: a later edit of the offer does not change it.
    const value = giftCardValue(offer);
    // So are the sale's per-unit figures the statements count (docs/statements.md): a later edit of
    // the price does not change what was sold before it.
    const figures = saleFigures(offer.document, shares);
    return Array.from({ length: it.quantity }, (_, unit) => {
      const code = newRedemptionCode();
      return {
        id: derivedId('vch', `${o.workflowId}:voucher:${i}:${unit}`),
        offer_id: it.offer_id,
        order_id: o.orderId,
        client_id: o.clientId,
        account_id: o.accountId,
        reservation_id: unit < taken[i].fromReservation ? taken[i].reservationId : null,
        counts_stock: offer.quantity_in_stock !== null,
        redemption_code: code,
        barcode: code.replace(/-/g, ''),
        customer_name: o.customerName,
        customer_key: customer,
        status: 'acquired' as const,
        expiration_date: expirationDate(offer.document, today),
        value_amount: value?.amount ?? null,
        value_currency: value?.currency_code ?? null,
        balance_amount: value?.amount ?? null,
        ...figures,
      };
    });
  });
  const vouchers = await trx
    .insertInto('vouchers')
    .values(await useSuppliedCodes(trx, rows, offers))
    .returningAll()
    .execute();
  return vouchers.map((v) => ({ ...v, redemptions: [], redemption_count: 0 }));
}

/** The per-unit figures a voucher of this offer keeps from its sale: price, rebate, and the revenues the distribution view shows. */
function saleFigures(document: unknown, shares: RevenueShares) {
  const doc = document as { price?: Money; advertiser_rebate?: Money };
  const revenues = distributionRevenues(doc.price, shares);
  return {
    sale_price_amount: doc.price?.amount ?? null,
    sale_price_currency: doc.price?.currency_code ?? null,
    sale_rebate_amount: doc.advertiser_rebate?.amount ?? null,
    sale_rebate_currency: doc.advertiser_rebate?.currency_code ?? null,
    sale_distributor_revenue: revenues.distributor?.amount ?? null,
    sale_account_revenue: revenues.account?.amount ?? null,
  };
}

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
function sortVouchers<V extends VoucherRow>(vouchers: V[]): V[] {
  const key = (v: VoucherRow) => [v.offer_id, v.acquired_at.toISOString(), v.id];
  return [...vouchers].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
  });
}

/** With `vouchersPerOrder`, only that many vouchers of each order are read (lists stay bounded). */
async function withDetails(db: Db, rows: OrderRow[], vouchersPerOrder?: number): Promise<OrderWithDetails[]> {
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
