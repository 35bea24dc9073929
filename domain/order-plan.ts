import type { PlaceOrderInput } from './orders';
import { Failure, type Refused } from './failures';
import { customerKey } from './customer-identity';
import { restrictionsOf } from './offer-terms';
import { vouchersExpireOf } from './voucher-expiry';
import { accountKey, heldKey, type OrderState, type PlanTools } from './order-state';
import { BatchStock, type OrderTake, type StockEvent } from './order-stock';
import { voucherRows, type NewVoucherRow } from './order-vouchers';

export type { StockEvent } from './order-stock';
export type { NewVoucherRow } from './order-vouchers';

/*
 * Placing a batch of orders, decided (the "decider": decide(commands, state) → changes, then
 * apply). Given the batch's orders in the order they came and the rows locked for them
 * (domain/order-state.ts), it answers each order with its refusal or its changes: the order and item
 * rows, one voucher per unit, the stock taken (from the account's reservation first, then general
 * stock) with its events, the supplied codes issued. Orders are decided one after another against
 * what the earlier ones took, as the row locks would have ordered them; a refused order changes
 * nothing. store/order-plan-writing.ts writes the whole plan, one statement per table.
 */

export interface NewOrderRow {
  id: string;
  client_id: string;
  order_number: string;
  /** The order's key (orderKey in domain/orders.ts); its id derives from it. Named workflow_id until migration 0067. */
  order_key: string;
  account_id: string | null;
  application_id: string | null;
  customer_name: string;
  customer_reference: string | null;
  /** JSON text, or null. */
  shipping_address: string | null;
  request_id: string | null;
}

/** An item row; `stock_after` is the offer's general stock once this order took its units (the offer as sold). */
export interface NewItemRow {
  order_id: string;
  position: number;
  offer_id: string;
  quantity: number;
  stock_after: number | null;
}

export interface OrderChanges {
  order: NewOrderRow;
  items: NewItemRow[];
  vouchers: NewVoucherRow[];
  events: StockEvent[];
  /** Units sold through each reservation. */
  reservationTakes: { reservation_id: string; units: number }[];
  /** The supplied codes this order issues (their ids are its vouchers' ids). */
  codesIssued: string[];
}

export type OrderDecision =
  | { kind: 'placed'; changes: OrderChanges }
  /** Placed before by this same request (its request id): answered from the database. */
  | { kind: 'placedBefore'; orderId: string }
  | { kind: 'refused'; refusal: Refused };

/** An offer's counts after the whole batch, with its last event number; `availabilityChanged`: it sold out or came back. */
export interface OfferAfter {
  id: string;
  quantity_in_stock: number;
  reserved_quantity: number;
  event_sequence: number;
  availabilityChanged: boolean;
}

export interface BatchPlan {
  /** One per order, in the batch's order. */
  decisions: OrderDecision[];
  /** The offers whose stock the batch moved. */
  offers: OfferAfter[];
}

/** Decides every order of the batch; pure (the tools' makers aside). */
export function planOrders(orders: readonly PlaceOrderInput[], state: OrderState, tools: PlanTools): BatchPlan {
  const stock = new BatchStock(state, tools.derivedId);
  const planned = new Set<string>();
  const decisions = orders.map((o): OrderDecision => {
    // The order row there already: this request's own retry is answered as placed; any other
    // request for its order_number (or a second one in this batch) is a duplicate.
    const found = state.existing.get(o.orderId);
    if (planned.has(o.orderId) || (found && found.request_id !== (o.requestId ?? null))) return { kind: 'refused', refusal: duplicate(o) };
    if (found) return { kind: 'placedBefore', orderId: o.orderId };
    try {
      const changes = planOrder(o, state, stock.begin(), tools);
      planned.add(o.orderId);
      return { kind: 'placed', changes };
    } catch (err) {
      if (err instanceof Failure) return { kind: 'refused', refusal: err.toRefused() };
      throw err;
    }
  });
  return { decisions, offers: stock.offersAfter() };
}

const duplicate = (o: PlaceOrderInput): Refused =>
  new Failure('duplicate', `order_number ${o.orderNumber} is already used by order ${o.orderId}`, {
    field: 'order_number',
    order_id: o.orderId,
  }).toRefused();

/**
 * One order against the batch's stock so far: every check first (throwing its refusal), then the
 * units taken; `take` only commits them to the batch once the whole order is decided.
 */
function planOrder(o: PlaceOrderInput, state: OrderState, take: OrderTake, tools: PlanTools): OrderChanges {
  const { rules } = tools;
  const { today } = state;
  if (o.accountId) rules.requireAccount(o.accountId, state.accounts.get(accountKey(o.clientId, o.accountId)));
  const offers = o.items.map((it, i) => {
    // An offer exclusive to other distributors does not exist for this one.
    const found = state.offers.get(it.offer_id);
    const why = rules.unsellableReason(found && rules.openTo(found.document, o.clientId, today) ? found : undefined, today);
    if (why || !found) throw new Failure('invalid_field', `offer ${it.offer_id} ${why}`, { field: `items[${i}].offer_id` });
    rules.requireUnexpiredVouchers({ id: found.id, vouchers_expire: vouchersExpireOf(found.document) }, today, `items[${i}].offer_id`);
    rules.requireWithinOrderLimit(found, it.quantity, `items[${i}].quantity`);
    return found;
  });
  const customer = customerKey(o.customerReference, o.customerName);
  o.items.forEach((it, i) => {
    if (restrictionsOf(offers[i].document).limit_per_customer === undefined) return;
    const held = take.held(heldKey(it.offer_id, o.clientId, customer));
    rules.requireWithinCustomerLimit(offers[i], held, it.quantity, `items[${i}].quantity`);
  });
  const taken = o.items.map((it, i) => take.units(o, i, offers[i]));
  const codes = o.items.map((it, i) => take.codes(offers[i], it.quantity));
  o.items.forEach((it, i) => {
    if (restrictionsOf(offers[i].document).limit_per_customer !== undefined)
      take.hold(heldKey(it.offer_id, o.clientId, customer), it.quantity);
  });
  take.commit();
  const vouchers = voucherRows(o, offers, taken, codes, { today, customer, tools });
  return {
    order: {
      id: o.orderId,
      client_id: o.clientId,
      order_number: o.orderNumber,
      order_key: o.orderKey,
      account_id: o.accountId,
      application_id: o.applicationId,
      customer_name: o.customerName,
      customer_reference: o.customerReference ?? null,
      shipping_address: o.shippingAddress ? JSON.stringify(o.shippingAddress) : null,
      request_id: o.requestId ?? null,
    },
    items: o.items.map((it, position) => ({ order_id: o.orderId, position, ...it, stock_after: taken[position].stockAfter })),
    vouchers,
    events: taken.flatMap((t) => (t.event ? [t.event] : [])),
    reservationTakes: taken.flatMap((t) => (t.reservationId ? [{ reservation_id: t.reservationId, units: t.fromReservation }] : [])),
    codesIssued: codes.flatMap((c) => c.map((code) => code.id)),
  };
}
