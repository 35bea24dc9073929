import type { Db, Trx } from './db';
import type { OrderRow } from './database';
import type { Placed, PlaceOrderInput } from '../domain/orders';
import type { Refused } from '../domain/failures';
import type { SaleRules } from '../domain/sales';
import { refusable, refuse } from '../domain/failures';
import { utcDay } from '../domain/dates';
import { distributionRevenues, type Money, type RevenueShares } from '../domain/money';
import { customerKey } from '../domain/customer-identity';
import { restrictionsOf } from '../domain/offer-terms';
import { vouchersExpireOf } from '../domain/voucher-expiry';
import { giftCardValue } from '../domain/redemptions';
import { generatedBarcode } from '../domain/barcodes';
import { findAccount } from './accounts';
import { derivedId } from './ids';
import { lockOffers, moveStock, type LockedOffer } from './offer-stock';
import { findOrderRow, offerAsSoldSql, ORDER_ITEM_COLUMNS, sortVouchers, withDetails, type OrderWithDetails } from './orders';
import type { VoucherWithRedemptions } from './redemptions';
import { lockUsableReservation, takeReservedUnits } from './reservations';
import { useSuppliedCodes } from './supplied-vouchers';
import { countCustomerVouchers, expirationDate, newRedemptionCode } from './vouchers';

/*
 * Placing an order: ONE transaction keyed by the order's key (orderKey) writes the order row, takes
 * the stock of every item and issues one voucher per unit. A batch run again finds its order
 * committed and changes nothing; a refusal rolls everything back. The order's reads and its
 * cancellation are store/orders.ts.
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
    key: `${o.orderKey}:place:${offer.id}`,
    reason: 'order_placed',
  });
  return { reservationId: res && fromReservation > 0 ? res.id : null, fromReservation };
}

/** A placed order as the placing transaction wrote it (or found it, on a retry). */
export type PlacedOrder = Extract<Placed, { ok: true }> & { order: OrderWithDetails };

/**
 * Records a placed order: its row, the stock of every item and one voucher per unit, in one transaction
 * of few round trips (the order row; the offers locked; one statement per stock move with its
 * event; the items; the vouchers), returning what it wrote so nobody reads it again. The account
 * and the offers are checked with `rules` (domain/sales.ts) in that transaction, once locked.
 */
export async function recordPlacedOrder(
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
        // Each item keeps its offer as it is sold (after its units were taken), read under the lock.
        .values(o.items.map((it, position) => ({ order_id: o.orderId, position, ...it, offer_as_sold: offerAsSoldSql(it.offer_id) })))
        .returning(ORDER_ITEM_COLUMNS)
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
      workflow_id: o.orderKey,
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
 * The order was there already. Placed by the same request (its request id: a batch run again), it
 * is answered as placed; otherwise its order_number is a duplicate, refused with the order's id.
 */
async function placedBefore(trx: Trx, o: PlaceOrderInput): Promise<PlacedOrder> {
  const row = await findOrderRow(trx, o.orderId);
  if (row.request_id !== (o.requestId ?? null)) {
    refuse('duplicate', `order_number ${o.orderNumber} is already used by order ${o.orderId}`, {
      field: 'order_number',
      order_id: o.orderId,
    });
  }
  return { ok: true, orderId: o.orderId, issued: 0, order: (await withDetails(trx, [row]))[0] };
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
        id: derivedId('vch', `${o.orderKey}:voucher:${i}:${unit}`),
        offer_id: it.offer_id,
        order_id: o.orderId,
        client_id: o.clientId,
        account_id: o.accountId,
        reservation_id: unit < taken[i].fromReservation ? taken[i].reservationId : null,
        counts_stock: offer.quantity_in_stock !== null,
        redemption_code: code,
        barcode: generatedBarcode(code),
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
